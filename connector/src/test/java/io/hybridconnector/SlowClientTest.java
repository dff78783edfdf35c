package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * Slow clients, issue 40, through real sockets, stock NIO in the same body: a client that trickles its request body
 * holds a thread on stock NIO for as long as it trickles (the servlet's blocking read waits for it); ours holds the
 * request on its loop until the body is in, so the servlet never waits, and closes it with a 408 when it arrives
 * slower than the minimum data rate. Every other way of sending a body answers as on stock.
 */
class SlowClientTest {

    private static final String STOCK = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int TRICKLERS = 30;

    @Test
    void clientsTricklingABodyHoldNoThreadUntilItIsIn() throws Exception {
        for (String protocol : new String[] { STOCK, HYBRID }) {
            try (TestServer server = new TestServer(protocol)) {
                List<Socket> tricklers = new ArrayList<>();
                try {
                    int before = TestServer.EchoServlet.IN_SERVICE.get();
                    long directBefore = directMemoryUsed();
                    String rest = "x".repeat(999);
                    for (int i = 0; i < TRICKLERS; i++) {
                        Socket s = server.connect();
                        tricklers.add(s);
                        send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\nx");
                    }
                    Thread.sleep(1000);
                    int waiting = TestServer.EchoServlet.IN_SERVICE.get() - before;
                    long directKb = (directMemoryUsed() - directBefore) / 1024;
                    System.out.printf("[slow-client] %s: %d of %d body tricklers inside the servlet after 1 s, "
                            + "direct memory %+d KB%n", protocol, waiting, TRICKLERS, directKb);
                    if (protocol.equals(STOCK)) {
                        assertEquals(TRICKLERS, waiting, "stock NIO: each trickler holds a thread in its servlet");
                    } else {
                        assertEquals(0, waiting, "ours: no trickler's servlet runs before its body is in");
                        assertTrue(server.hybrid().counters().getRequestsHeld() >= TRICKLERS);
                        // Held, a request keeps its bytes, not the connection's pooled buffers (8 + 64 KB, direct).
                        assertTrue(directKb < TRICKLERS * 72 / 4, "held tricklers took " + directKb + " KB of "
                                + "direct memory, for " + TRICKLERS + " requests of 59 bytes");
                    }
                    for (Socket s : tricklers) {
                        send(s, rest);
                    }
                    for (Socket s : tricklers) {
                        TestServer.Response r = TestServer.readResponse(s.getInputStream());
                        assertEquals(200, r.status());
                        assertEquals("x" + rest, r.text());
                    }
                } finally {
                    for (Socket s : tricklers) {
                        s.close();
                    }
                }
            }
        }
    }

    @Test
    void aBodySlowerThanTheMinimumRateIsAnswered408AndClosed() throws Exception {
        for (String protocol : new String[] { STOCK, HYBRID }) {
            String[] attributes = protocol.equals(HYBRID) ?
                    new String[] { "requestReadTimeout", "1000", "minRequestDataRate", "500" } : new String[0];
            try (TestServer server = new TestServer(protocol, attributes); Socket s = server.connect()) {
                send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n");
                long start = System.nanoTime();
                s.setSoTimeout(200);
                String answer = null;
                // 5 bytes a second for up to 4 s: a hundredth of the minimum rate
                for (int i = 0; i < 20 && answer == null; i++) {
                    send(s, "x");
                    answer = readIfAny(s.getInputStream());
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                System.out.printf("[slow-client] %s: a body at 5 bytes/s answered %s after %d ms%n", protocol,
                        answer == null ? "nothing" : "[" + answer.lines().findFirst().orElse("") + "]", millis);
                if (protocol.equals(STOCK)) {
                    assertEquals(null, answer, "stock NIO waits while bytes keep coming within connectionTimeout");
                } else {
                    assertTrue(answer != null && answer.startsWith("HTTP/1.1 408 "), "ours: 408, got " + answer);
                    assertTrue(millis < 3500, "closed within the timeout and a sweep: " + millis + " ms");
                    assertEquals(1, server.hybrid().counters().getSlowRequestsClosed());
                }
            }
        }
    }

    @Test
    void aBodyAtTwiceTheMinimumRateCompletesPastTheTimeout() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "requestReadTimeout", "1000", "minRequestDataRate", "500");
                Socket s = server.connect()) {
            byte[] body = new byte[3000];
            new Random(3).nextBytes(body);
            send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length + "\r\n\r\n");
            OutputStream out = s.getOutputStream();
            long start = System.nanoTime();
            for (int off = 0; off < body.length; off += 100) { // 1,000 bytes a second for 3 s
                out.write(body, off, 100);
                out.flush();
                Thread.sleep(100);
            }
            TestServer.Response r = TestServer.readResponse(s.getInputStream());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, r.status());
            assertArrayEquals(body, r.body());
            assertTrue(millis > 2500, "the body took longer than the 1 s timeout: " + millis + " ms");
            assertEquals(0, server.hybrid().counters().getSlowRequestsClosed());
        }
    }

    /**
     * A client on a slow uplink, 1 MB at 50 KB/s under the defaults ({@code requestReadTimeout} 20 s, at least 500
     * bytes a second): it takes longer than the timeout, and completes because it keeps above the rate, as it does
     * on stock, which has no such limit. Both servers take the upload at the same time.
     */
    @Test
    void aMegabyteAtFiftyKilobytesASecondCompletesUnderTheDefaults() throws Exception {
        byte[] body = new byte[1 << 20];
        new Random(11).nextBytes(body);
        try (TestServer stock = new TestServer(STOCK); TestServer ours = new TestServer(HYBRID)) {
            CompletableFuture<String> onStock = CompletableFuture.supplyAsync(() -> uploadPaced(stock, body));
            long start = System.nanoTime();
            String onOurs = uploadPaced(ours, body);
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("[slow-client] 1 MB at 50 KB/s: stock %s, ours %s in %d ms%n", onStock.get(), onOurs,
                    millis);
            assertEquals("200, the body echoed", onOurs);
            assertEquals(onStock.get(), onOurs);
            assertTrue(millis > 20_000, "the upload was over before the 20 s timeout: " + millis + " ms");
            assertEquals(0, ours.hybrid().counters().getSlowRequestsClosed());
        }
    }

    /** POSTs {@code body} to {@code /echo} at 50 KB/s (5 KB every 100 ms, on a schedule) and reads the answer. */
    private static String uploadPaced(TestServer server, byte[] body) {
        int piece = 5 * 1024;
        try (Socket s = server.connect()) {
            s.setSoTimeout(60_000);
            send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length + "\r\n\r\n");
            OutputStream out = s.getOutputStream();
            long start = System.nanoTime();
            for (int off = 0, i = 0; off < body.length; off += piece, i++) {
                long due = start + i * 100_000_000L;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                out.write(body, off, Math.min(piece, body.length - off));
                out.flush();
            }
            TestServer.Response r = TestServer.readResponse(s.getInputStream());
            return r.status() + (Arrays.equals(body, r.body()) ? ", the body echoed" : ", a different body");
        } catch (IOException | InterruptedException e) {
            return e.toString();
        }
    }

    /**
     * Bodies sent every other way (chunked, {@code 100-continue}, a form, a {@code ReadListener}, multipart, 200 KB,
     * over the read buffer), and a client that gives up mid-body: the same answers as stock.
     */
    @Test
    void everyOtherWayOfSendingABodyAnswersAsStock() throws Exception {
        byte[] large = new byte[200_000];
        new Random(5).nextBytes(large);
        List<String> answers = new ArrayList<>();
        for (String protocol : new String[] { STOCK, HYBRID }) {
            try (TestServer server = new TestServer(protocol)) {
                StringBuilder sb = new StringBuilder();
                try (Socket s = server.connect()) {
                    send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
                            "5\r\nhello\r\n");
                    Thread.sleep(100);
                    send(s, "6\r\n world\r\n0\r\n\r\n");
                    sb.append("chunked: ").append(TestServer.readResponse(s.getInputStream()).text()).append('\n');

                    send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
                    String interim = readLine(s.getInputStream());
                    readLine(s.getInputStream());
                    send(s, "12345");
                    sb.append("100-continue: ").append(interim).append(" then ")
                            .append(TestServer.readResponse(s.getInputStream()).text()).append('\n');

                    send(s, "POST /form HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
                            "Content-Length: 13\r\n\r\na=1&b=t%C3%A");
                    Thread.sleep(100);
                    send(s, "9");
                    sb.append("form: ").append(TestServer.readResponse(s.getInputStream()).text()).append('\n');

                    send(s, "POST /nbecho HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello");
                    Thread.sleep(100);
                    send(s, " world");
                    sb.append("ReadListener: ").append(TestServer.readResponse(s.getInputStream()).text()).append('\n');

                    String multipart = "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n12345\r\n" +
                            "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\n" +
                            "Content-Type: text/plain\r\n\r\nabcdefgh\r\n--b--\r\n";
                    send(s, "POST /multipart HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                            + "Content-Length: " + multipart.length() + "\r\n\r\n" + multipart.substring(0, 40));
                    Thread.sleep(100);
                    send(s, multipart.substring(40));
                    sb.append("multipart: ").append(TestServer.readResponse(s.getInputStream()).text()).append('\n');

                    OutputStream out = s.getOutputStream();
                    out.write(("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " + large.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.write(large);
                    out.flush();
                    TestServer.Response r = TestServer.readResponse(s.getInputStream());
                    sb.append("200 KB: ").append(r.status()).append(' ').append(Arrays.equals(large, r.body()))
                            .append('\n');
                }
                try (Socket s = server.connect()) {
                    send(s, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\nabc");
                }
                try (Socket s = server.connect()) {
                    sb.append("after a client gave up mid-body: ")
                            .append(TestServer.get(s, "/size?bytes=3").status()).append('\n');
                }
                answers.add(sb.toString());
                System.out.printf("[slow-client] %s:%n%s", protocol, sb);
            }
        }
        assertEquals(answers.get(0), answers.get(1));
        for (String expected : new String[] { "chunked: hello world", "100-continue: HTTP/1.1 100 ",
                "ReadListener: read 11 bytes: hello world", "multipart: x=5;f=8;", "200 KB: 200 true",
                "after a client gave up mid-body: 200" }) {
            assertTrue(answers.get(1).contains(expected), "missing [" + expected + "] in:\n" + answers.get(1));
        }
    }

    private static long directMemoryUsed() {
        for (java.lang.management.BufferPoolMXBean pool : java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new IllegalStateException("no direct buffer pool");
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** @return what arrived within the socket's timeout, up to the end of the stream; {@code null} if nothing did */
    private static String readIfAny(InputStream in) throws IOException {
        byte[] buffer = new byte[1024];
        StringBuilder sb = new StringBuilder();
        try {
            int n;
            while ((n = in.read(buffer)) > 0) {
                sb.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketTimeoutException e) {
            // nothing more for now
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }
}
