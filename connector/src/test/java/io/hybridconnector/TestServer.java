package io.hybridconnector;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.MultipartConfigElement;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.Part;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * An embedded Tomcat with a handful of servlets, on a free port, for socket-level tests of the connector.
 */
final class TestServer implements AutoCloseable {

    final Tomcat tomcat;
    final Connector connector;
    final int port;
    /** Tomcat's base directory, a fresh temporary one; deleted by {@link #close}. */
    private final File baseDir;

    TestServer(String protocol, String... attributes) throws Exception {
        this(false, protocol, attributes);
    }

    /** A server whose connector also speaks HTTP/2 (h2c by upgrade and prior knowledge), as Tomcat's nested element. */
    static TestServer withHttp2(String protocol, String... attributes) throws Exception {
        return new TestServer(true, protocol, attributes);
    }

    /** A server whose protocol runs its requests' off-loop work on {@code executor}, as Spring Boot or {@code executor="..."} set it. */
    static TestServer withExecutor(String protocol, java.util.concurrent.Executor executor, String... attributes)
            throws Exception {
        return new TestServer(false, c -> c.getProtocolHandler().setExecutor(executor), protocol, attributes);
    }

    private TestServer(boolean http2, String protocol, String... attributes) throws Exception {
        this(http2, c -> { }, protocol, attributes);
    }

    private TestServer(boolean http2, java.util.function.Consumer<Connector> customizer, String protocol,
            String... attributes) throws Exception {
        File base = Files.createTempDirectory("hybrid-test").toFile();
        baseDir = base;
        try {
            tomcat = new Tomcat();
            tomcat.setBaseDir(base.getAbsolutePath());
            connector = new Connector(protocol);
            connector.setPort(0);
            for (int i = 0; i < attributes.length; i += 2) {
                if (!connector.setProperty(attributes[i], attributes[i + 1])) {
                    throw new IllegalArgumentException("Unknown attribute " + attributes[i]);
                }
            }
            customizer.accept(connector);
            if (http2) {
                connector.addUpgradeProtocol(new org.apache.coyote.http2.Http2Protocol());
            }
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Context ctx = tomcat.addContext("", base.getAbsolutePath());
            add(ctx, "size", new SizeServlet(), "/size");
            add(ctx, "block", new BlockServlet(), "/block");
            add(ctx, "thread", new ThreadServlet(), "/thread");
            add(ctx, "echo", new EchoServlet(), "/echo");
            add(ctx, "form", new FormServlet(), "/form");
            add(ctx, "upstream", new UpstreamServlet(), "/upstream");
            add(ctx, "compute", new ComputeServlet(), "/compute");
            add(ctx, "trickle", new TrickleServlet(), "/trickle");
            add(ctx, "cold", new ColdStartServlet(), "/cold");
            Tomcat.addServlet(ctx, "async", new AsyncServlet()).setAsyncSupported(true);
            Tomcat.addServlet(ctx, "nbecho", new NonBlockingEchoServlet()).setAsyncSupported(true);
            ctx.addServletMappingDecoded("/nbecho", "nbecho");
            Tomcat.addServlet(ctx, "multipart", new MultipartServlet())
                    .setMultipartConfigElement(new MultipartConfigElement(""));
            ctx.addServletMappingDecoded("/multipart", "multipart");
            ctx.addServletMappingDecoded("/async", "async");
            tomcat.start();
            port = connector.getLocalPort();
        } catch (Exception | Error e) {
            TempDirs.deleteRecursively(base.toPath());
            throw e;
        }
    }

    private static void add(Context ctx, String name, HttpServlet servlet, String path) {
        Tomcat.addServlet(ctx, name, servlet);
        ctx.addServletMappingDecoded(path, name);
    }

    /** @return the server's base directory (a temporary one, removed by {@link #close}) */
    Path baseDir() {
        return baseDir.toPath();
    }

    HybridHttp11Protocol hybrid() {
        return (HybridHttp11Protocol) connector.getProtocolHandler();
    }

    Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(20000);
        return s;
    }

    @Override
    public void close() throws Exception {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            TempDirs.deleteRecursively(baseDir.toPath());
        }
    }


    // ------------------------------------------------------------------ client helpers

    static void sendGet(Socket s, String path) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** A parsed response with a Content-Length body. */
    record Response(int status, String head, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.ISO_8859_1);
        }
    }

    static Response readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("Connection closed in headers: " + head);
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ?
                    state + 1 : 0;
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int status = Integer.parseInt(h.substring(9, 12));
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("Short body: " + body.length + " of " + length);
        }
        return new Response(status, h, body);
    }

    static Response get(Socket s, String path) throws IOException {
        sendGet(s, path);
        return readResponse(s.getInputStream());
    }

    // ------------------------------------------------------------------ servlets

    /** Random alphanumeric body of ?kb= kilobytes, or ?bytes=, written in one call. */
    static final class SizeServlet extends HttpServlet {
        static final byte[] ALPHABET =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            String bytes = req.getParameter("bytes");
            int n = bytes != null ? Integer.parseInt(bytes) :
                    (int) Math.round(Double.parseDouble(req.getParameter("kb")) * 1024);
            byte[] body = new byte[n];
            ThreadLocalRandom r = ThreadLocalRandom.current();
            for (int i = 0; i < n; i++) {
                body[i] = ALPHABET[r.nextInt(ALPHABET.length)];
            }
            resp.setContentType("text/plain");
            resp.setContentLength(n);
            resp.getOutputStream().write(body);
        }
    }

    /**
     * {@code /trickle?kb=&ms=&n=}: n times, sleeps ms, then writes {@code "piece <i>\n"} and kb KB of
     * {@code ALPHABET[i % 62]}, never flushing; chunked. As the samples' {@code /trickle}.
     */
    static final class TrickleServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            int bytes = (int) Math.round(Double.parseDouble(req.getParameter("kb")) * 1024);
            long ms = Long.parseLong(req.getParameter("ms"));
            int n = Integer.parseInt(req.getParameter("n"));
            resp.setContentType("text/plain");
            OutputStream out = resp.getOutputStream();
            byte[] piece = new byte[bytes];
            for (int i = 0; i < n; i++) {
                try {
                    Thread.sleep(ms);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                out.write(("piece " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                Arrays.fill(piece, SizeServlet.ALPHABET[i % SizeServlet.ALPHABET.length]);
                out.write(piece);
            }
        }
    }

    /** {@code /block?ms=}: sleeps, then answers {@code "slept <ms>"}, or with {@code &thread} the thread it ran on. */
    static final class BlockServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long ms = Long.parseLong(req.getParameter("ms"));
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String text = req.getParameter("thread") != null ? Thread.currentThread().toString() : "slept " + ms;
            byte[] body = text.getBytes(StandardCharsets.US_ASCII);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    /**
     * Computes for ?ms= milliseconds of its thread's CPU time (not wall time: on a shared core it takes longer), as a
     * report, a template or a password hash does.
     */
    static final class ComputeServlet extends HttpServlet {
        /** Requests computing now, and the most at once since the last {@link #resetPeak}. */
        static final AtomicInteger RUNNING = new AtomicInteger();
        static final AtomicInteger PEAK = new AtomicInteger();

        static void resetPeak() {
            PEAK.set(RUNNING.get());
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            PEAK.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
            try {
                compute(req, resp);
            } finally {
                RUNNING.decrementAndGet();
            }
        }

        private static void compute(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long ms = Long.parseLong(req.getParameter("ms"));
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long until = threads.getCurrentThreadCpuTime() + ms * 1_000_000;
            long x = 1;
            while (threads.getCurrentThreadCpuTime() < until) {
                for (int i = 0; i < 10_000; i++) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
            }
            String nice = req.getParameter("nice") == null ? "" : " nice " + niceOfThisThread();
            if (req.getParameter("spawn") != null) {
                nice += " child " + niceOfAChildThread();
            }
            byte[] body = ("computed " + ms + " " + (x & 1) + nice).getBytes(StandardCharsets.US_ASCII);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    /** @return the calling thread's nice value, the 19th field of its {@code /proc/thread-self/stat} */
    static int niceOfThisThread() throws IOException {
        return niceIn(java.nio.file.Files.readString(java.nio.file.Paths.get("/proc/thread-self/stat")));
    }

    /** @return the nice value of a thread the calling thread starts, as an application's own thread would have */
    static int niceOfAChildThread() throws IOException {
        int[] nice = new int[1];
        Thread child = new Thread(() -> {
            try {
                nice[0] = niceOfThisThread();
            } catch (IOException e) {
                nice[0] = Integer.MIN_VALUE;
            }
        });
        child.start();
        try {
            child.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return nice[0];
    }

    /** @return the nice value in a thread's {@code stat} line: the 17th field after its name */
    static int niceIn(String stat) {
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }

    /** Reports the thread and the frames beneath the servlet. */
    /**
     * Sleeps 30 ms while {@link #slowLeft} is above zero (counting it down), then answers at once: a path whose first
     * requests wait (a cold cache, a class initialisation) and whose later ones do not. Answers its thread's name.
     */
    static final class ColdStartServlet extends HttpServlet {
        static final AtomicInteger slowLeft = new AtomicInteger();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (slowLeft.getAndDecrement() > 0) {
                try {
                    Thread.sleep(30);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = Thread.currentThread().getName().getBytes(StandardCharsets.US_ASCII);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    static final class ThreadServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            StringBuilder sb = new StringBuilder("thread=").append(Thread.currentThread().getName()).append('\n');
            Arrays.stream(Thread.currentThread().getStackTrace())
                    .forEach(f -> sb.append(f.getClassName()).append('.').append(f.getMethodName()).append('\n'));
            byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    /** Echoes the request body; counts the requests inside it, reading or writing (every server of the JVM). */
    static final class EchoServlet extends HttpServlet {
        static final AtomicInteger IN_SERVICE =
                new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            IN_SERVICE.incrementAndGet();
            try {
                byte[] body = req.getInputStream().readAllBytes();
                resp.setContentLength(body.length);
                resp.getOutputStream().write(body);
            } finally {
                IN_SERVICE.decrementAndGet();
            }
        }
    }

    /** Answers the form parameters {@code a} and {@code b} of a POST as {@code a=...&b=...}. */
    static final class FormServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body = ("a=" + req.getParameter("a") + "&b=" + req.getParameter("b"))
                    .getBytes(StandardCharsets.UTF_8);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    /** Reads one byte from a TCP upstream on ?port=, as a JDBC driver waits for its database: RUNNABLE, no CPU. */
    static final class UpstreamServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            try (Socket s = new Socket("127.0.0.1", Integer.parseInt(req.getParameter("port")))) {
                int b = s.getInputStream().read();
                byte[] body = ("upstream " + b).getBytes(StandardCharsets.US_ASCII);
                resp.setContentLength(body.length);
                resp.getOutputStream().write(body);
            }
        }
    }

    /** Completes from another thread after ?ms=. */
    /** Echoes the request body read with a {@code ReadListener} (non-blocking), as {@code "read N bytes: ..."}. */
    static final class NonBlockingEchoServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            AsyncContext ac = req.startAsync();
            ServletInputStream in = req.getInputStream();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            in.setReadListener(new ReadListener() {
                @Override
                public void onDataAvailable() throws IOException {
                    byte[] buffer = new byte[4096];
                    while (in.isReady()) {
                        int n = in.read(buffer);
                        if (n < 0) {
                            return;
                        }
                        body.write(buffer, 0, n);
                    }
                }

                @Override
                public void onAllDataRead() throws IOException {
                    byte[] answer = ("read " + body.size() + " bytes: " + body.toString(StandardCharsets.ISO_8859_1))
                            .getBytes(StandardCharsets.ISO_8859_1);
                    ac.getResponse().setContentLength(answer.length);
                    ac.getResponse().getOutputStream().write(answer);
                    ac.complete();
                }

                @Override
                public void onError(Throwable t) {
                    ac.complete();
                }
            });
        }
    }

    /** Answers each part of a {@code multipart/form-data} POST as {@code name=size;}. */
    static final class MultipartServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            StringBuilder sb = new StringBuilder();
            try {
                for (Part part : req.getParts()) {
                    sb.append(part.getName()).append('=').append(part.getSize()).append(';');
                }
            } catch (ServletException e) {
                sb.append("error: ").append(e.getMessage());
            }
            byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    static final class AsyncServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            long ms = Long.parseLong(req.getParameter("ms"));
            AsyncContext ac = req.startAsync();
            new Thread(() -> {
                try {
                    Thread.sleep(ms);
                    byte[] body = ("async " + ms).getBytes(StandardCharsets.US_ASCII);
                    ac.getResponse().setContentLength(body.length);
                    ac.getResponse().getOutputStream().write(body);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                } finally {
                    ac.complete();
                }
            }).start();
        }
    }
}
