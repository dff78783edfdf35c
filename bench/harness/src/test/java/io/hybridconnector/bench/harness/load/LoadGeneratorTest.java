package io.hybridconnector.bench.harness.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

/** The load generator against a tiny blocking socket server (a thread per connection) that answers as told. */
class LoadGeneratorTest {

    private static final Duration WARMUP = Duration.ofMillis(100);
    private static final Duration WINDOW = Duration.ofMillis(300);

    @Test
    void countsEveryContentLengthResponseAndMeasuresLatency() throws Exception {
        try (TinyServer server = new TinyServer(n -> ok("0123456789"))) {
            CellResult r = LoadGenerator.run(spec(server, 4).withExpectedBodyBytes(10), countingProbe());
            assertEquals(0, r.errorCount(), r.errorsText());
            assertTrue(r.requests() > 50, "requests " + r.requests());
            assertEquals(r.requests(), r.latency().getTotalCount());
            assertEquals(10 * r.requests(), r.bodyBytes());
            assertTrue(r.latencyMillis(50) > 0);
            assertEquals(4, server.connections.get(), "one connection per slot, kept alive");
            assertTrue(server.requests.get() >= r.requests());
        }
    }

    @Test
    void closeEachOpensANewConnectionPerRequestWithoutCountingItAsAnError() throws Exception {
        try (TinyServer server = new TinyServer(n -> new String[] {
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", TinyServer.CLOSE })) {
            CellResult r = LoadGenerator.run(spec(server, 2).withExpectedBodyBytes(2).withCloseEach(true));
            assertEquals(0, r.errorCount(), r.errorsText());
            assertTrue(r.requests() > 20, "requests " + r.requests());
            assertTrue(server.connections.get() >= r.requests(), "a connection per request: "
                    + server.connections.get() + " for " + r.requests());
            assertTrue(server.sawConnectionClose.get(), "the requests asked Connection: close");
        }
    }

    /**
     * After a {@code Connection: close} response the client waits for the server's close, as browsers and HTTP
     * libraries do, so the server's side ends in TIME_WAIT. A client that closed first kept every one of its
     * ephemeral ports in TIME_WAIT (28,232 at 20,000 connections a second), and each connect() searched that space:
     * the churn cell measured the load generator's port search rather than the server.
     */
    @Test
    void closeEachWaitsForTheServerToCloseFirst() throws Exception {
        try (TinyServer server = new TinyServer(n -> new String[] {
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                TinyServer.LINGER_THEN_CLOSE })) {
            CellResult r = LoadGenerator.run(spec(server, 2).withExpectedBodyBytes(2).withCloseEach(true));
            assertEquals(0, r.errorCount(), r.errorsText());
            assertTrue(r.requests() > 5, "requests " + r.requests());
            // Only the connections still open when the run ends (one per slot) are closed by the client.
            assertTrue(server.clientClosedFirst.get() <= 2, server.clientClosedFirst.get()
                    + " connections closed by the client before the server, of " + server.connections.get());
        }
    }

    @Test
    void framesChunkedResponsesSplitOverSeveralWrites() throws Exception {
        try (TinyServer server = new TinyServer(n -> new String[] {
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", "lo\r\n6\r\n world\r\n0\r\n\r\n" })) {
            CellResult r = LoadGenerator.run(spec(server, 2).withExpectedBodyBytes(11));
            assertEquals(0, r.errorCount(), r.errorsText());
            assertTrue(r.requests() > 20, "requests " + r.requests());
        }
    }

    @Test
    void wrongBodyLengthAndBadStatusAreErrorsNotRequests() throws Exception {
        try (TinyServer server = new TinyServer(n -> n % 2 == 0 ? ok("short")
                : new String[] { "HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n" })) {
            CellResult r = LoadGenerator.run(spec(server, 2).withExpectedBodyBytes(10));
            assertEquals(0, r.requests());
            assertTrue(r.errors().getOrDefault("body-length", 0L) > 0, r.errorsText());
            assertTrue(r.errors().getOrDefault("status-500", 0L) > 0, r.errorsText());
        }
    }

    @Test
    void serverClosingMidResponseIsAnErrorAndTheConnectionIsReplaced() throws Exception {
        // Content-Length promises 10 bytes, the server sends 3 and closes.
        try (TinyServer server = new TinyServer(n -> new String[] {
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", TinyServer.CLOSE })) {
            CellResult r = LoadGenerator.run(spec(server, 2));
            assertEquals(0, r.requests());
            assertTrue(r.errors().getOrDefault("closed", 0L) > 0, r.errorsText());
            assertTrue(r.reconnects() > 0);
            assertTrue(server.connections.get() > 2);
        }
    }

    @Test
    void unframedBodyIsAFramingError() throws Exception {
        try (TinyServer server = new TinyServer(n -> new String[] { "HTTP/1.1 200 OK\r\n\r\nuntil close",
                TinyServer.CLOSE })) {
            CellResult r = LoadGenerator.run(spec(server, 1));
            assertEquals(0, r.requests());
            assertTrue(r.errors().getOrDefault("framing", 0L) > 0, r.errorsText());
        }
    }

    @Test
    void unansweredRequestTimesOut() throws Exception {
        try (TinyServer server = new TinyServer(n -> new String[0])) {
            CellResult r = LoadGenerator.run(spec(server, 1).withRequestTimeout(Duration.ofMillis(100)));
            assertEquals(0, r.requests());
            assertTrue(r.errors().getOrDefault("timeout", 0L) > 0, r.errorsText());
        }
    }

    @Test
    void uploadSendsItsBodyInPiecesAPauseApart() throws Exception {
        try (TinyServer server = new TinyServer(n -> ok("done"))) {
            CellSpec.Upload upload = new CellSpec.Upload(3000, 3, Duration.ofMillis(20));
            CellResult r = LoadGenerator.run(spec(server, 2).withUpload(upload).withExpectedBodyBytes(4));
            assertEquals(0, r.errorCount(), r.errorsText());
            assertTrue(r.requests() > 5, "requests " + r.requests());
            assertTrue(server.sawPost.get(), "the requests were POSTs");
            assertEquals(0, server.bodyBytes.get() % 3000, "whole bodies: " + server.bodyBytes.get());
            // two pauses of 20 ms; the server starts its clock once it has read the head, late when the machine is
            // busy, so only the longest wait is sure to show them
            assertTrue(server.longestBodyNanos.get() >= Duration.ofMillis(30).toNanos(), "two pauses of 20 ms "
                    + "between the head and the body's end, longest " + server.longestBodyNanos.get() / 1e6 + " ms");
            assertTrue(r.latencyMillis(50) >= 38, "the latency includes the upload: " + r.latencyMillis(50));
        }
    }

    @Test
    void anAnswerBeforeTheWholeBodyIsAnError() throws Exception {
        try (TinyServer server = new TinyServer(n -> ok("early"), false)) {
            // pauses far longer than the server takes to answer, even on a loaded machine
            CellSpec.Upload upload = new CellSpec.Upload(3000, 3, Duration.ofMillis(500));
            CellResult r = LoadGenerator.run(spec(server, 1).withUpload(upload));
            assertEquals(0, r.requests());
            assertTrue(r.errors().getOrDefault("early-response", 0L) > 0, r.errorsText());
        }
    }

    @Test
    void refusedConnectionsAreConnectErrors() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CellResult r = LoadGenerator.run(new CellSpec(new InetSocketAddress("127.0.0.1", port), "/", 2, WARMUP,
                WINDOW, Duration.ofSeconds(1), -1));
        assertEquals(0, r.requests());
        assertTrue(r.errors().getOrDefault("connect", 0L) > 0, r.errorsText());
    }

    private static Probe countingProbe() {
        AtomicInteger calls = new AtomicInteger();
        return new Probe() {
            @Override
            public void beforeWarmup() {
                assertEquals(0, calls.getAndIncrement());
            }

            @Override
            public void measureStart() {
                assertEquals(1, calls.getAndIncrement());
            }

            @Override
            public void measureEnd() {
                assertEquals(2, calls.getAndIncrement());
            }
        };
    }

    private static CellSpec spec(TinyServer server, int connections) {
        return CellSpec.of(new InetSocketAddress("127.0.0.1", server.port()), "/x", connections, WARMUP, WINDOW);
    }

    private static String[] ok(String body) {
        return new String[] { "HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body };
    }

    /** Blocking, a thread per connection; answers request n of a connection with the parts from the function. */
    static final class TinyServer implements AutoCloseable {
        static final String CLOSE = "\u0000close";
        /** Waits 20 ms for the client to close (counted in {@link #clientClosedFirst}), then closes. */
        static final String LINGER_THEN_CLOSE = "\u0000linger";
        final AtomicInteger connections = new AtomicInteger();
        final AtomicInteger clientClosedFirst = new AtomicInteger();
        final AtomicLong requests = new AtomicLong();
        final AtomicBoolean sawConnectionClose = new AtomicBoolean();
        final AtomicBoolean sawPost = new AtomicBoolean();
        /** Request body bytes read, and the longest time from reading a request's head to reading its body's end. */
        final AtomicLong bodyBytes = new AtomicLong();
        final AtomicLong longestBodyNanos = new AtomicLong();
        private final ServerSocket server;
        private final IntFunction<String[]> responses;
        /** Whether a request's Content-Length body is read before the answer (else the answer goes at once). */
        private final boolean readBodies;
        private final Thread acceptor;

        TinyServer(IntFunction<String[]> responses) throws IOException {
            this(responses, true);
        }

        TinyServer(IntFunction<String[]> responses, boolean readBodies) throws IOException {
            this.responses = responses;
            this.readBodies = readBodies;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.acceptor = new Thread(this::accept, "tiny-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    connections.incrementAndGet();
                    Thread t = new Thread(() -> serve(s), "tiny-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                s.setTcpNoDelay(true);
                for (int n = 0;; n++) {
                    String head = readRequestHead(in);
                    if (head == null) {
                        return;
                    }
                    if (head.contains("\r\nConnection: close\r\n")) {
                        sawConnectionClose.set(true);
                    }
                    if (head.startsWith("POST ")) {
                        sawPost.set(true);
                        if (readBodies && !readBody(in, head)) {
                            return;
                        }
                    }
                    requests.incrementAndGet();
                    for (String part : responses.apply(n)) {
                        if (part.equals(CLOSE)) {
                            return;
                        }
                        if (part.equals(LINGER_THEN_CLOSE)) {
                            s.setSoTimeout(20);
                            try {
                                if (in.read() < 0) {
                                    clientClosedFirst.incrementAndGet();
                                }
                            } catch (SocketTimeoutException stillOpen) {
                                // the client waits for us to close
                            }
                            return;
                        }
                        out.write(part.getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    }
                }
            } catch (IOException gone) {
                // client closed
            }
        }

        /** Reads the body its Content-Length announces, timing it; false when the client closed first. */
        private boolean readBody(InputStream in, String head) throws IOException {
            int at = head.indexOf("Content-Length: ");
            int length = Integer.parseInt(head.substring(at + 16, head.indexOf('\r', at)));
            long start = System.nanoTime();
            byte[] body = in.readNBytes(length);
            if (body.length < length) {
                return false;
            }
            longestBodyNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
            bodyBytes.addAndGet(length);
            return true;
        }

        /** The request head up to its empty line, or {@code null} when the client closed first. */
        private static String readRequestHead(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.append((char) b);
                matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            return head.toString();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
