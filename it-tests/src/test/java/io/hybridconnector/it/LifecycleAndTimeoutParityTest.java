package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One test body, both connectors: deadlines (connectionTimeout, keepAliveTimeout), maxKeepAliveRequests,
 * pause/resume, Servlet async timeouts, bodyless responses and conflicting or broken body framing, with the samples
 * WAR deployed unchanged. Each test starts its own server because most need their own connector attributes.
 * Expectations are what stock {@code Http11NioProtocol} does on Tomcat 10.1 and 11.0; the one intended difference
 * (ours keeps idle connections open by default) is asserted per connector.
 */
class LifecycleAndTimeoutParityTest {

    /** Small enough to keep the suite short, large enough that loopback round trips never reach it. */
    private static final int TIMEOUT_MS = 1000;
    /**
     * Stock NIO checks deadlines once per selector timeout (1 s) and ours sweeps once a second, so a connection
     * that passes its deadline is closed within about two seconds of its last byte; allow for a loaded machine.
     */
    private static final long CLOSE_WITHIN_MS = TIMEOUT_MS + 3000;

    /** What a connection did within a wait: the bytes it sent, whether it closed, and when. */
    record Outcome(String bytes, boolean closed, long millis) {
        /** @return the status of the first response, or -1 if none arrived */
        int status() {
            return bytes.startsWith("HTTP/1.1 ") && bytes.length() >= 12 ? Integer.parseInt(bytes.substring(9, 12)) : -1;
        }
    }

    /** Reads until the peer closes (EOF or reset) or {@code waitMillis} pass. */
    static Outcome drain(Socket s, long waitMillis) throws IOException {
        long start = System.nanoTime();
        long deadline = start + waitMillis * 1_000_000;
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[8192];
        boolean closed = false;
        try {
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                s.setSoTimeout((int) left);
                int n = in.read(buf);
                if (n < 0) {
                    closed = true;
                    break;
                }
                got.write(buf, 0, n);
            }
        } catch (SocketTimeoutException stillOpen) {
            // the wait ended with the connection open
        } catch (SocketException reset) {
            closed = true;
        }
        return new Outcome(got.toString(StandardCharsets.ISO_8859_1), closed, (System.nanoTime() - start) / 1_000_000);
    }

    /** Asserts the connection stays open and silent for {@code millis}, then that it still serves a request. */
    static void assertStillServes(Socket s, long millis, String what) throws IOException {
        Outcome idle = drain(s, millis);
        assertFalse(idle.closed(), what + ": closed after " + idle.millis() + " ms");
        assertEquals("", idle.bytes(), what);
        s.setSoTimeout(5000);
        RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1"));
        assertEquals(200, r.status(), what);
        assertEquals(102, r.body().length, what);
    }

    static void assertClosedAfterAboutTimeout(Outcome o, String what) {
        assertTrue(o.closed(), what + ": still open after " + o.millis() + " ms, got [" + o.bytes() + "]");
        assertTrue(o.millis() >= TIMEOUT_MS - 200, what + ": closed after only " + o.millis() + " ms");
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void connectionTimeoutBoundsARequestBeingReceived(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which, Map.of("connectionTimeout", "" + TIMEOUT_MS))) {
            String[] partial = {
                "", // connected, sent nothing
                "GET /samples/size?kb=0.1 HT", // half a request line
                "GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: loc", // half the headers
            };
            List<Socket> sockets = new ArrayList<>();
            long[] sentAt = new long[partial.length];
            try {
                for (int i = 0; i < partial.length; i++) {
                    Socket s = server.connect();
                    sockets.add(s);
                    if (!partial[i].isEmpty()) {
                        RawHttp.send(s, partial[i]);
                    }
                    sentAt[i] = System.nanoTime();
                }
                for (int i = 0; i < partial.length; i++) {
                    long waited = (System.nanoTime() - sentAt[i]) / 1_000_000;
                    Outcome o = drain(sockets.get(i), Math.max(200, CLOSE_WITHIN_MS - waited));
                    String what = which + " after [" + partial[i].replace("\r\n", "\\r\\n") + "]";
                    assertClosedAfterAboutTimeout(new Outcome(o.bytes(), o.closed(), waited + o.millis()), what);
                    // Stock NIO closes without a response while the request line or headers are incomplete.
                    assertEquals("", o.bytes(), what);
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            // The deadline is per read, not per request: a slow but steady client is served.
            try (Socket s = server.connect()) {
                for (String piece : new String[] { "GET /samples/size?kb=0.1 HTTP/1.1\r\n", "Host: localhost\r\n",
                        "X-Slow: 1\r\n", "\r\n" }) {
                    RawHttp.send(s, piece);
                    Thread.sleep(TIMEOUT_MS / 2);
                }
                assertEquals(200, RawHttp.read(s.getInputStream(), true).status());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void bodyReadTimeoutGets400AndAClose(ConnectorUnderTest which) throws Exception {
        bodyReadTimeoutGets400AndACloseOn(which);
    }

    /**
     * A request whose body stops arriving: the servlet's blocking read times out after connectionTimeout, Tomcat
     * turns that into 400 and closes the connection.
     */
    private static void bodyReadTimeoutGets400AndACloseOn(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which, Map.of("connectionTimeout", "" + TIMEOUT_MS));
                Socket s = server.connect()) {
            RawHttp.send(s, "POST /samples/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\nabcde");
            Outcome o = drain(s, CLOSE_WITHIN_MS);
            String what = which + " after half a body";
            assertClosedAfterAboutTimeout(o, what);
            assertEquals(400, o.status(), what + ": got [" + o.bytes() + "]");
            assertTrue(o.bytes().contains("\r\nConnection: close\r\n"), what + ": " + o.bytes());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void explicitKeepAliveTimeoutClosesAnIdleConnection(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which, Map.of("keepAliveTimeout", "" + TIMEOUT_MS));
                Socket idle = server.connect(); Socket busy = server.connect()) {
            assertEquals(200, RawHttp.exchange(idle, RawHttp.get("/samples/size?kb=0.1")).status());
            assertEquals(200, RawHttp.exchange(busy, RawHttp.get("/samples/size?kb=0.1")).status());
            // A connection that keeps sending requests more often than the timeout is never cut.
            long start = System.nanoTime();
            while (System.nanoTime() - start < 2_000_000_000L) {
                Thread.sleep(TIMEOUT_MS / 3);
                assertEquals(200, RawHttp.exchange(busy, RawHttp.get("/samples/size?kb=0.1")).status());
            }
            Outcome o = drain(idle, CLOSE_WITHIN_MS);
            // It has been idle for two seconds already; it must be closed by now or very soon, without a response.
            assertTrue(o.closed(), which + ": idle keep-alive connection still open after " + (2000 + o.millis()) +
                    " ms with keepAliveTimeout=" + TIMEOUT_MS);
            assertEquals("", o.bytes());
        }
    }

    /**
     * The one intended difference: stock NIO's keepAliveTimeout defaults to connectionTimeout, ours to infinite (idle
     * connections hold no thread and no buffers). Only meaningful with a short connectionTimeout.
     */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void defaultKeepAliveTimeoutIsConnectionTimeoutOnStockAndInfiniteOnOurs(ConnectorUnderTest which)
            throws Exception {
        try (SamplesServer server = new SamplesServer(which, Map.of("connectionTimeout", "" + TIMEOUT_MS));
                Socket s = server.connect()) {
            assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1")).status());
            if (which == ConnectorUnderTest.STOCK_NIO) {
                assertClosedAfterAboutTimeout(drain(s, CLOSE_WITHIN_MS), which + " idle keep-alive");
            } else {
                assertStillServes(s, CLOSE_WITHIN_MS, which + " idle keep-alive with the default keepAliveTimeout");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void maxKeepAliveRequestsClosesAfterTheNthRequest(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which, Map.of("maxKeepAliveRequests", "3"))) {
            try (Socket s = server.connect()) {
                for (int i = 1; i <= 3; i++) {
                    RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1"));
                    assertEquals(200, r.status());
                    assertEquals(102, r.body().length);
                    if (i < 3) {
                        assertNull(r.header("Connection"), which + " request " + i + ": " + r.head());
                    } else {
                        assertEquals("close", r.header("Connection"), which + " request 3: " + r.head());
                    }
                }
                assertTrue(RawHttp.closedByPeer(s), which + ": open after the 3rd request");
            }
            // Pipelined: the 4th request is not answered, the 3rd says close and the connection ends.
            try (Socket s = server.connect()) {
                String get = RawHttp.get("/samples/size?kb=0.1");
                RawHttp.send(s, get + get + get + get);
                InputStream in = s.getInputStream();
                for (int i = 1; i <= 3; i++) {
                    RawHttp.Response r = RawHttp.read(in, true);
                    assertEquals(200, r.status());
                    assertEquals(i == 3 ? "close" : null, r.header("Connection"), which + " pipelined " + i);
                }
                assertTrue(RawHttp.closedByPeer(s), which + ": answered a 4th pipelined request");
            }
        }
        try (SamplesServer server = new SamplesServer(which, Map.of("maxKeepAliveRequests", "1"));
                Socket s = server.connect()) {
            RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1"));
            assertEquals(200, r.status());
            assertEquals("close", r.header("Connection"), which + " maxKeepAliveRequests=1: " + r.head());
            assertTrue(RawHttp.closedByPeer(s));
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void pauseHoldsNewConnectionsAndResumeServesThem(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which); Socket idle = server.connect();
                Socket inFlight = server.connect()) {
            assertEquals(200, RawHttp.exchange(idle, RawHttp.get("/samples/size?kb=0.1")).status());
            RawHttp.send(inFlight, RawHttp.get("/samples/block?ms=800"));
            Thread.sleep(200);
            server.connector.pause();
            try (Socket fresh = server.connect()) {
                // The kernel completes the handshake (backlog), but the connector accepts nothing while paused.
                RawHttp.send(fresh, RawHttp.get("/samples/size?kb=0.1"));

                // The request in flight finishes; stock NIO then closes its connection.
                RawHttp.Response r = RawHttp.read(inFlight.getInputStream(), true);
                assertEquals(200, r.status());
                assertEquals("slept 800", r.text());
                assertTrue(RawHttp.closedByPeer(inFlight), which + ": in-flight connection kept alive while paused");

                // A request on an idle keep-alive connection is not served while paused: the connection closes.
                RawHttp.send(idle, RawHttp.get("/samples/size?kb=0.1"));
                Outcome o = drain(idle, 3000);
                assertTrue(o.closed(), which + ": idle connection open while paused, got [" + o.bytes() + "]");
                assertEquals("", o.bytes(), which + ": request served on a kept-alive connection while paused");

                Outcome held = drain(fresh, 700);
                assertFalse(held.closed(), which + ": new connection closed while paused");
                assertEquals("", held.bytes(), which + ": new connection served while paused");

                server.connector.resume();
                fresh.setSoTimeout(5000);
                RawHttp.Response after = RawHttp.read(fresh.getInputStream(), true);
                assertEquals(200, after.status(), which + ": held connection after resume");
                assertEquals(102, after.body().length);
            }
            try (Socket s = server.connect()) {
                assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1")).status());
                assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1")).status());
            }
        }
    }

    /**
     * An async request that nobody completes: Tomcat answers 500 through its error report and closes the connection
     * (the request ended in error); a listener that completes (503 in the sample) closes it too; a listener that
     * dispatches gets the target's response and the connection goes on.
     */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void asyncTimeoutsFollowTheContainersHandling(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which)) {
            try (Socket s = server.connect()) {
                long start = System.nanoTime();
                RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/async-timeout?timeoutMs=200"));
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertEquals(500, r.status(), which + ": " + r.head());
                assertTrue(r.text().contains("500"), which + ": " + r.text());
                assertTrue(millis >= 200, which + ": answered after " + millis + " ms");
                // Tomcat checks async timeouts once a second.
                assertTrue(millis < 3000, which + ": answered after " + millis + " ms");
                assertEquals("close", r.header("Connection"), which + ": " + r.head());
                assertTrue(RawHttp.closedByPeer(s), which + ": open after an async timeout error");
            }
            try (Socket s = server.connect()) {
                RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/async?ms=5000&timeoutMs=100"));
                assertEquals(503, r.status(), which + ": " + r.head());
                assertEquals("async timeout", r.text());
                assertEquals("close", r.header("Connection"), which + ": " + r.head());
                assertTrue(RawHttp.closedByPeer(s), which + ": open after an async timeout");
            }
            try (Socket s = server.connect()) {
                for (int i = 0; i < 2; i++) {
                    RawHttp.Response d = RawHttp.exchange(s,
                            RawHttp.get("/samples/async-timeout?timeoutMs=100&dispatch=/size?kb=0.1"));
                    assertEquals(200, d.status(), which + ": " + d.head());
                    assertEquals(102, d.body().length);
                    assertNull(d.header("Connection"), which + ": " + d.head());
                }
                assertEquals("async 0", RawHttp.exchange(s, RawHttp.get("/samples/async?ms=0")).text());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void headAndNotModifiedSendNoBodyAndKeepTheConnection(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which); Socket s = server.connect()) {
            InputStream in = s.getInputStream();
            for (String path : new String[] { "/samples/size?kb=10", "/samples/index.html",
                "/samples/download?bytes=100000" }) {
                RawHttp.send(s, "HEAD " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
                String head = RawHttp.readHead(in);
                assertTrue(head.startsWith("HTTP/1.1 200"), which + " HEAD " + path + ": " + head);
                assertNoMoreBytes(s, which + " HEAD " + path);
                RawHttp.Response get = RawHttp.exchange(s, RawHttp.get(path));
                assertEquals(200, get.status(), which + " GET " + path + " after HEAD");
            }
            RawHttp.Response page = RawHttp.exchange(s, RawHttp.get("/samples/index.html"));
            String lastModified = page.header("Last-Modified");
            String etag = page.header("ETag");
            assertNotNull(lastModified, page.head());
            assertNotNull(etag, page.head());
            for (String condition : new String[] { "If-Modified-Since: " + lastModified, "If-None-Match: " + etag }) {
                RawHttp.send(s, "GET /samples/index.html HTTP/1.1\r\nHost: localhost\r\n" + condition + "\r\n\r\n");
                String head = RawHttp.readHead(in);
                assertTrue(head.startsWith("HTTP/1.1 304"), which + " " + condition + ": " + head);
                assertNoMoreBytes(s, which + " " + condition);
            }
            RawHttp.Response after = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1"));
            assertEquals(200, after.status());
            assertEquals(102, after.body().length);
        }
    }

    /** Nothing follows a bodyless response, and the connection stays open. */
    private static void assertNoMoreBytes(Socket s, String what) throws IOException {
        Outcome o = drain(s, 150);
        assertEquals("", o.bytes(), what + ": bytes after a bodyless response");
        assertFalse(o.closed(), what + ": closed after a bodyless response");
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void contentLengthWithChunkedIsReadAsChunkedAndClosesTheConnection(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which); Socket s = server.connect()) {
            // RFC 9112 6.3: Transfer-Encoding overrides Content-Length, and the connection must close afterwards.
            RawHttp.send(s, "POST /samples/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n" +
                    "Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n" +
                    "6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n");
            Outcome o = drain(s, 5000);
            assertTrue(o.closed(), which + ": open after CL + TE, got [" + o.bytes() + "]");
            assertEquals(200, o.status(), which + ": " + o.bytes());
            assertTrue(o.bytes().contains("\r\nConnection: close\r\n"), which + ": " + o.bytes());
            assertTrue(o.bytes().endsWith("\r\n\r\nhello world"), which + ": " + o.bytes());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void invalidChunkSizeGets400AndAClose(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which)) {
            for (String body : new String[] { "zz\r\nhello\r\n0\r\n\r\n", "5\r\nhello\r\nfffffffffffffffff\r\nx\r\n" }) {
                try (Socket s = server.connect()) {
                    RawHttp.send(s, "POST /samples/upload HTTP/1.1\r\nHost: localhost\r\n" +
                            "Transfer-Encoding: chunked\r\n\r\n" + body);
                    Outcome o = drain(s, 5000);
                    String what = which + " chunked body [" + body.replace("\r\n", "\\r\\n") + "]";
                    assertEquals(400, o.status(), what + ": " + o.bytes());
                    assertTrue(o.closed(), what + ": still open");
                }
            }
        }
    }
}
