package io.hybridconnector.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * Which first bytes of a request let it run: a complete head, and a {@code Content-Length} body that is in or cannot
 * fit; everything the bytes do not tell reliably runs as it is, for Tomcat to answer as stock does.
 */
class RequestReadAheadTest {

    private static final int CAPACITY = 256;

    @Test
    void aCompleteGetRuns() {
        assertTrue(runnable("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertTrue(runnable("HEAD / HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\n"), "pipelined, the next partial");
    }

    @Test
    void anIncompleteHeadIsHeld() {
        assertFalse(runnable("GET / HTTP/1.1\r\nHost: a\r\n"));
        assertFalse(runnable("POST /echo HTTP/1.1\r\nContent-Le"));
        assertFalse(runnable("P"));
    }

    @Test
    void aHeadThatFillsTheBufferRunsForTomcatToAnswer() {
        assertTrue(runnable("GET /" + "a".repeat(CAPACITY - 5)));
    }

    @Test
    void aBodyIsHeldUntilItIsIn() {
        String head = "POST /echo HTTP/1.1\r\nHost: a\r\ncontent-length: 10\r\n\r\n";
        assertFalse(runnable(head));
        assertFalse(runnable(head + "123456789"));
        assertTrue(runnable(head + "1234567890"));
        assertTrue(runnable("PUT /x HTTP/1.1\r\nContent-Length:  3 \r\n\r\nabc"), "blanks around the value");
    }

    @Test
    void aBodyLongerThanTheBufferRunsOnceTheBufferIsFull() {
        String head = "POST /echo HTTP/1.1\r\nContent-Length: 100000\r\n\r\n";
        assertFalse(runnable(head + "x".repeat(100)));
        assertTrue(runnable(head + "x".repeat(CAPACITY - head.length())));
    }

    @Test
    void whatTheBytesDoNotTellReliablyRunsAsItIs() {
        assertTrue(runnable("POST /e HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"));
        assertTrue(runnable("POST /e HTTP/1.1\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n"));
        assertTrue(runnable("POST /e HTTP/1.1\r\nContent-Length: 10\r\nContent-Length: 10\r\n\r\n"));
        assertTrue(runnable("POST /e HTTP/1.1\r\nContent-Length: ten\r\n\r\n"));
        assertTrue(runnable("POST /e HTTP/1.1\r\nContent-Length: -1\r\n\r\n"));
        assertTrue(runnable("POST /e HTTP/1.1\r\nContent-Length: 0\r\n\r\n"));
        assertTrue(runnable("POST /e HTTP/1.1\r\nHost: a\r\n\r\n"), "no body");
        assertTrue(runnable("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), "the HTTP/2 preface");
    }

    @Test
    void theDeadlineGrowsWithTheBytesReceived() {
        assertEquals(1_000 + 20_000, RequestReadAhead.deadlineMillis(1_000, 0, 20_000, 500));
        assertEquals(1_000 + 20_000 + 2_000, RequestReadAhead.deadlineMillis(1_000, 1_000, 20_000, 500));
        assertEquals(1_000 + 20_000, RequestReadAhead.deadlineMillis(1_000, 1_000, 20_000, -1));
        assertEquals(Long.MAX_VALUE, RequestReadAhead.deadlineMillis(1_000, 1_000, -1, 500));
    }

    /** The bytes as the read buffer holds them: read mode, from position 0, in a buffer of {@link #CAPACITY}. */
    private static boolean runnable(String request) {
        ByteBuffer b = ByteBuffer.allocate(CAPACITY);
        b.put(request.getBytes(StandardCharsets.ISO_8859_1));
        b.flip();
        return RequestReadAhead.runnable(b);
    }
}
