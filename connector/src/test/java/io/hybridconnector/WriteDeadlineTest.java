package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every write strategy honours the write deadline: a client that stops reading gets its connection cut once no byte
 * has moved for {@code connectionTimeout}, the request's thread is released, and the socket stays failed (issue 16:
 * {@code writeStrategy="direct"} retried forever). One test body for stock NIO and each of our strategies.
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

    @ParameterizedTest
    @CsvSource({ "org.apache.coyote.http11.Http11NioProtocol,", "io.hybridconnector.HybridHttp11Protocol,hybrid",
            "io.hybridconnector.HybridHttp11Protocol,spin", "io.hybridconnector.HybridHttp11Protocol,direct" })
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
            }
        }
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
