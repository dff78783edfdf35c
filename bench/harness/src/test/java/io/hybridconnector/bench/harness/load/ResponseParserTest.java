package io.hybridconnector.bench.harness.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ResponseParserTest {

    private static final String LENGTH = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n"
            + "0123456789";
    private static final String CHUNKED = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
            + "4;ext=1\r\nabcd\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n";

    @Test
    void contentLengthResponseFramedAtEverySplitPoint() throws Exception {
        assertEverySplit(LENGTH, 200, 10);
    }

    @Test
    void chunkedResponseWithExtensionAndTrailerFramedAtEverySplitPoint() throws Exception {
        assertEverySplit(CHUNKED, 200, 14);
    }

    @Test
    void stopsAtTheEndOfOneResponseSoPipelinedResponsesStaySeparate() throws Exception {
        ResponseParser p = new ResponseParser();
        ByteBuffer both = bytes(LENGTH + CHUNKED);
        assertTrue(p.parse(both));
        assertEquals(10, p.bodyBytes());
        assertEquals(CHUNKED.length(), both.remaining());
        p.reset();
        assertTrue(p.parse(both));
        assertEquals(14, p.bodyBytes());
        assertFalse(both.hasRemaining());
    }

    @Test
    void interimResponsesAreSkippedAndBodylessStatusesComplete() throws Exception {
        ResponseParser p = new ResponseParser();
        assertTrue(p.parse(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")));
        assertEquals(204, p.status());
        assertEquals(0, p.bodyBytes());
    }

    @Test
    void connectionCloseIsReported() throws Exception {
        ResponseParser p = new ResponseParser();
        assertTrue(p.parse(bytes("HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")));
        assertEquals(503, p.status());
        assertTrue(p.closeAfter());
        p.reset();
        assertTrue(p.parse(bytes(LENGTH)));
        assertFalse(p.closeAfter());
    }

    @Test
    void malformedResponsesAreRejected() {
        for (String bad : new String[] {
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody until close",
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
                "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
                "HTTX/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 1a\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n" }) {
            assertThrows(HttpFramingException.class, () -> new ResponseParser().parse(bytes(bad)), bad);
        }
    }

    @Test
    void incompleteResponseIsNotComplete() throws Exception {
        ResponseParser p = new ResponseParser();
        assertTrue(p.isIdle());
        assertFalse(p.parse(bytes(LENGTH.substring(0, LENGTH.length() - 1))));
        assertFalse(p.isComplete());
        assertFalse(p.isIdle());
    }

    private static void assertEverySplit(String response, int status, long body) throws Exception {
        for (int split = 0; split <= response.length(); split++) {
            ResponseParser p = new ResponseParser();
            ByteBuffer a = bytes(response.substring(0, split));
            ByteBuffer b = bytes(response.substring(split));
            boolean done = p.parse(a);
            assertFalse(a.hasRemaining(), "split " + split);
            if (!done) {
                assertTrue(p.parse(b), "split " + split);
            }
            assertFalse(b.hasRemaining() && split < response.length() && !done, "split " + split);
            assertEquals(status, p.status(), "split " + split);
            assertEquals(body, p.bodyBytes(), "split " + split);
        }
        // and one byte at a time
        ResponseParser p = new ResponseParser();
        byte[] all = response.getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < all.length; i++) {
            assertEquals(i == all.length - 1, p.parse(ByteBuffer.wrap(all, i, 1)), "byte " + i);
        }
        assertEquals(body, p.bodyBytes());
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    }
}
