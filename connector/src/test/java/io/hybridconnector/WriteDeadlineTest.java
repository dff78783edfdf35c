package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.hybridconnector.write.WriteStrategy;

/**
 * Every write strategy honours the write deadline: a client that stops reading gets its connection cut once no byte
 * has moved for {@code connectionTimeout}, the request's thread is released, and the socket stays failed (issue 16:
 * {@code writeStrategy="direct"} retried forever). One test body for stock NIO and each of our strategies (every
 * {@link WriteStrategy}: a new one is tested without a change here). The timeout is counted once
 * ({@code WriteTimeouts}), whichever way the writer met the deadline: waiting for writability or retrying.
 */
class WriteDeadlineTest {

    static final int DEADLINE_MILLIS = 1000;
    /** Filling the client's window, the detector's hand-off, the loop's sweep: well under this. */
    static final int SLACK_MILLIS = 1500;

    /** Writes 32 MB in one call and records when the write returned or threw: the request's thread is free. */
    static final class StallServlet extends HttpServlet {
        static volatile CompletableFuture<Object> released;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body = new byte[32 * 1024 * 1024];
            java.util.Arrays.fill(body, (byte) 'x');
            resp.setContentLength(body.length);
            try {
                resp.getOutputStream().write(body);
                resp.flushBuffer();
                released.complete("returned");
            } catch (IOException | RuntimeException e) {
                released.complete(e);
                throw e;
            }
        }
    }

    static Stream<Arguments> connectors() {
        return Stream.concat(Stream.of(Arguments.of("org.apache.coyote.http11.Http11NioProtocol", null)),
                Stream.of(WriteStrategy.values()).map(s -> Arguments.of("io.hybridconnector.HybridHttp11Protocol",
                        s.attributeValue())));
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void aClientThatStopsReadingReleasesTheRequestThreadWithinTheDeadline(String protocol, String strategy)
            throws Exception {
        String[] attributes = strategy == null ? new String[] { "connectionTimeout", "" + DEADLINE_MILLIS } :
                new String[] { "connectionTimeout", "" + DEADLINE_MILLIS, "writeStrategy", strategy };
        try (TestServer server = new TestServer(protocol, attributes)) {
            Context ctx = (Context) server.tomcat.getHost().findChild("");
            Tomcat.addServlet(ctx, "stall", new StallServlet());
            ctx.addServletMappingDecoded("/stall", "stall");
            StallServlet.released = new CompletableFuture<>();
            try (Socket s = new Socket()) {
                s.setReceiveBufferSize(4096);
                s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
                long start = System.nanoTime();
                TestServer.sendGet(s, "/stall");
                // The client reads nothing: the server's writes soon move no byte at all.
                Object how;
                try {
                    how = StallServlet.released.get(DEADLINE_MILLIS + SLACK_MILLIS + 5000, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    how = "still writing";
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                String what = protocol + " " + strategy + ": request thread " + how + " after " + millis + " ms";
                System.out.println(what);
                assertTrue(how instanceof IOException, what);
                assertTrue(millis < DEADLINE_MILLIS + SLACK_MILLIS, what);
                // The socket stays failed: the client gets what the kernel held, then the end, not 32 MB.
                long read = drain(s);
                assertTrue(read < 32 * 1024 * 1024, what + "; the client read " + read + " bytes, all of them");
                if (strategy != null) {
                    assertEquals(1, server.hybrid().writeCounters().getWriteTimeouts(), what + ": WriteTimeouts");
                }
            }
        }
    }

    /**
     * HTTP/2 with {@code useAsyncIO} (the default): Tomcat's frame writes are asynchronous operations, which wait for
     * the loop when the socket is full; the loop's sweep fails them at the write deadline, and that is counted too.
     */
    @org.junit.jupiter.api.Test
    void anAsynchronousWriteThatWaitsForTheLoopIsCountedAtTheDeadline() throws Exception {
        try (TestServer server = TestServer.withHttp2("io.hybridconnector.HybridHttp11Protocol")) {
            ((org.apache.coyote.http2.Http2Protocol) server.connector.findUpgradeProtocols()[0])
                    .setWriteTimeout(DEADLINE_MILLIS);
            try (Socket s = new Socket()) {
                s.setReceiveBufferSize(4096);
                s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
                s.getOutputStream().write(h2GetWithOpenWindows("/size?bytes=" + (32 * 1024 * 1024)));
                // The client reads nothing: the frames soon fill the socket and the write operation waits.
                long deadline = System.nanoTime() +
                        TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS + SLACK_MILLIS + 5000);
                while (server.hybrid().writeCounters().getWriteTimeouts() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(server.hybrid().writeCounters().getWriteTimeouts() >= 1, "WriteTimeouts");
            }
        }
    }

    /**
     * The preface, settings that open every stream's window, a connection window update, and a GET on stream 1 (HPACK
     * literals without indexing): a client that lets the server send as fast as the socket takes.
     */
    private static byte[] h2GetWithOpenWindows(String path) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        frame(b, 4, 0, 0, new byte[] { 0, 4, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff }); // INITIAL_WINDOW_SIZE
        int increment = Integer.MAX_VALUE - 65535;
        frame(b, 8, 0, 0, new byte[] { (byte) (increment >>> 24), (byte) (increment >>> 16), (byte) (increment >>> 8),
                (byte) increment });
        java.io.ByteArrayOutputStream h = new java.io.ByteArrayOutputStream();
        h.write(0x82); // :method GET
        h.write(0x86); // :scheme http
        literal(h, 4, path); // :path
        literal(h, 1, "localhost"); // :authority
        frame(b, 1, 0x5, 1, h.toByteArray()); // HEADERS, END_STREAM | END_HEADERS
        return b.toByteArray();
    }

    private static void literal(java.io.ByteArrayOutputStream h, int nameIndex, String value) {
        byte[] v = value.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        h.write(nameIndex);
        h.write(v.length);
        h.write(v, 0, v.length);
    }

    private static void frame(java.io.ByteArrayOutputStream b, int type, int flags, int stream, byte[] payload) {
        b.write(payload.length >>> 16);
        b.write(payload.length >>> 8);
        b.write(payload.length);
        b.write(type);
        b.write(flags);
        b.write(stream >>> 24);
        b.write(stream >>> 16);
        b.write(stream >>> 8);
        b.write(stream);
        b.write(payload, 0, payload.length);
    }

    /** Reads until the server's close shows (end of stream or reset). */
    private static long drain(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[65536];
        long total = 0;
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                total += n;
            }
        } catch (SocketException reset) {
            // closed by the server with bytes unsent
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection stayed open after " + total + " bytes", e);
        }
        return total;
    }
}
