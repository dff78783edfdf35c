package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.WeakReference;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.hybridconnector.TempDirs;

import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.websocket.server.WsSci;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Stopping and undeploying, one test body for both connectors: how long a stop takes while a request is blocked
 * reading its body or writing to a client that does not read; WebSocket sessions open while Tomcat stops (the
 * container sends each a close frame); and a web application that ran requests through the connector can be
 * collected after it is undeployed (no connector thread keeps its class loader).
 */
class StopParityTest {

    /** The bound on stopping our connector with one request blocked in a read or a write (issue 15). */
    private static final long STOP_MILLIS = 50;
    /**
     * Stock NIO's stop took 9-81 ms in these bodies on a 2-vCPU machine shared with other builds (its poller closes
     * the sockets, then it waits for its executor): the stock bound leaves room for that noise.
     */
    private static final long STOCK_STOP_MILLIS = 250;
    private static final int WEBSOCKET_RUNS = Integer.getInteger("it.websocketStopRuns", 50);
    private static final int WEBSOCKET_SESSIONS = 4;

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void stopReleasesARequestBlockedReadingItsBody(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which); Socket s = server.connect()) {
            assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1")).status()); // warm
            RawHttp.send(s, "POST /samples/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n" +
                    "x".repeat(1000));
            Thread.sleep(300); // the servlet has read the 1000 bytes and waits for more
            long millis = timeStop(server.connector);
            System.out.println(which + ": connector stop with a blocked read took " + millis + " ms");
            String lastWords = readUntilClosed(s);
            if (!lastWords.isEmpty()) {
                // Seen on ours now and then: Tomcat answered the aborted upload (its read failed) before the close.
                System.out.println(which + ": before closing, the server sent " + lastWords.lines().findFirst().get());
            }
            assertTrue(millis <= bound(which), which + ": stop with a blocked read took " + millis + " ms");
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void stopReleasesARequestBlockedWritingToAClientThatDoesNotRead(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which); Socket s = server.connect()) {
            s.setReceiveBufferSize(8192);
            RawHttp.send(s, RawHttp.get("/samples/size?kb=16384"));
            assertTrue(s.getInputStream().read() >= 0); // the servlet is writing its one 16 MB write
            Thread.sleep(300); // socket buffers full, the servlet waits to write
            long millis = timeStop(server.connector);
            System.out.println(which + ": connector stop with a blocked write took " + millis + " ms");
            assertTrue(millis <= bound(which), which + ": stop with a blocked write took " + millis + " ms");
        }
    }

    /**
     * @return what the server still sent before it closed the connection (a reset counts as a close)
     * @throws java.net.SocketTimeoutException if the connection stays open for 5 s after the stop
     */
    private static String readUntilClosed(Socket s) throws IOException {
        s.setSoTimeout(5000);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = s.getInputStream().read(buf)) >= 0; ) {
                sent.write(buf, 0, n);
            }
        } catch (SocketException reset) {
            // closed with a reset
        }
        return sent.toString(StandardCharsets.ISO_8859_1);
    }

    private static long bound(ConnectorUnderTest which) {
        return which == ConnectorUnderTest.HYBRID ? STOP_MILLIS : STOCK_STOP_MILLIS;
    }

    /** Stops the connector; prints the connector's threads if the stop is still running after a second. */
    private static long timeStop(Connector connector) throws Exception {
        Thread stopper = Thread.currentThread();
        CompletableFuture<Void> watchdog = CompletableFuture.runAsync(() -> dumpThreads(stopper),
                CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
        long start = System.nanoTime();
        try {
            connector.stop();
        } finally {
            watchdog.cancel(false);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static void dumpThreads(Thread stopper) {
        StringBuilder sb = new StringBuilder("Stop still running after 1 s; threads:\n");
        for (Map.Entry<Thread,StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (t == stopper || t.getName().contains("http-")) {
                sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
                for (StackTraceElement f : e.getValue()) {
                    sb.append("    at ").append(f).append('\n');
                }
            }
        }
        System.out.println(sb);
    }

    /**
     * Sessions open while Tomcat stops: the WebSocket container's destroy sends each a close frame (1001) during
     * {@code Tomcat.stop()}. In no run may sending a close frame fail (issue 15 item 7: a ClosedChannelException,
     * because our loop closed the connection after the client's answer while the sending thread was still inside
     * its flush), nor anything be logged at WARN or above. Other errors the endpoints see while the client goes away
     * at the same moment (a read that meets the client's end of stream, a send timeout on a loaded machine) are
     * counted and printed, for both connectors.
     */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void webSocketSessionsOpenAtShutdownAreClosedWithoutError(ConnectorUnderTest which) throws Exception {
        LogCapture logs = LogCapture.start("org.apache.tomcat.websocket", "org.apache.coyote", "io.hybridconnector");
        List<String> others = new ArrayList<>();
        try {
            for (int run = 0; run < WEBSOCKET_RUNS; run++) {
                List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
                List<String> closes = Collections.synchronizedList(new ArrayList<>());
                webSocketRun(which, errors, closes);
                List<Throwable> closeSends = new ArrayList<>();
                for (Throwable t : errors) {
                    if (stacks(List.of(t)).contains("WsSession.sendCloseMessage")) {
                        closeSends.add(t);
                    } else {
                        others.add("run " + run + ": " + t);
                    }
                }
                assertTrue(closeSends.isEmpty(), which + " run " + run + ": a close frame could not be sent: " +
                        stacks(closeSends));
                assertEquals(WEBSOCKET_SESSIONS, closes.size(), which + " run " + run + ": clients closed " + closes);
                assertEquals(List.of(), logs.warnings().stream().filter(w -> !isStartDescriptorWarning(w)).toList(),
                        which + " run " + run + ": WARN or worse logged at stop");
            }
        } finally {
            logs.close();
        }
        System.out.println(which + ": " + WEBSOCKET_RUNS + " stops with " + WEBSOCKET_SESSIONS +
                " open sessions; other endpoint errors: " + others);
    }

    private static String stacks(List<Throwable> errors) {
        java.io.StringWriter w = new java.io.StringWriter();
        synchronized (errors) {
            for (Throwable t : errors) {
                t.printStackTrace(new java.io.PrintWriter(w));
            }
        }
        return w.toString();
    }

    private static void webSocketRun(ConnectorUnderTest which, List<Throwable> errors, List<String> closes)
            throws Exception {
        Path base = Files.createTempDirectory("it-ws-" + which.name());
        Tomcat tomcat = new Tomcat();
        try {
            tomcat.setBaseDir(base.toString());
            Connector connector = new Connector(which.protocol);
            connector.setPort(0);
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Context ctx = tomcat.addContext("", base.toString());
            // A mapped path, so that the request reaches the WebSocket filter, which upgrades it.
            Tomcat.addServlet(ctx, "default", new org.apache.catalina.servlets.DefaultServlet());
            ctx.addServletMappingDecoded("/", "default");
            ctx.addServletContainerInitializer(new WsSci(), null);
            ctx.addServletContainerInitializer((classes, sc) -> {
                ServerContainer container = (ServerContainer) sc.getAttribute(ServerContainer.class.getName());
                try {
                    container.addEndpoint(ServerEndpointConfig.Builder.create(EchoEndpoint.class, "/echo")
                            .configurator(new ServerEndpointConfig.Configurator() {
                                @Override
                                @SuppressWarnings("unchecked")
                                public <T> T getEndpointInstance(Class<T> clazz) {
                                    return (T) new EchoEndpoint(errors);
                                }
                            }).build());
                } catch (jakarta.websocket.DeploymentException e) {
                    throw new jakarta.servlet.ServletException(e);
                }
            }, null);
            tomcat.start();
            HttpClient http = HttpClient.newHttpClient();
            List<CompletableFuture<String>> closed = new ArrayList<>();
            List<WebSocket> sockets = new ArrayList<>();
            for (int i = 0; i < WEBSOCKET_SESSIONS; i++) {
                CompletableFuture<String> echo = new CompletableFuture<>();
                CompletableFuture<String> close = new CompletableFuture<>();
                WebSocket ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                        .buildAsync(URI.create("ws://127.0.0.1:" + connector.getLocalPort() + "/echo"),
                                new ClientListener(echo, close))
                        .get(10, TimeUnit.SECONDS);
                ws.sendText("hello " + i, true).get(5, TimeUnit.SECONDS);
                assertEquals("hello " + i, echo.get(5, TimeUnit.SECONDS));
                sockets.add(ws);
                closed.add(close);
            }
            tomcat.stop();
            for (CompletableFuture<String> c : closed) {
                closes.add(c.get(10, TimeUnit.SECONDS));
            }
            for (WebSocket ws : sockets) {
                ws.abort();
            }
        } finally {
            if (tomcat.getServer().getState() != org.apache.catalina.LifecycleState.STOPPED) {
                tomcat.stop();
            }
            tomcat.destroy();
            TempDirs.deleteRecursively(base);
        }
    }

    /** Echoes text; records every error Tomcat hands it (a close frame that could not be sent lands here). */
    public static final class EchoEndpoint extends Endpoint {
        private final List<Throwable> errors;

        public EchoEndpoint(List<Throwable> errors) {
            this.errors = errors;
        }

        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.addMessageHandler(String.class, (MessageHandler.Whole<String>) text -> {
                try {
                    session.getBasicRemote().sendText(text);
                } catch (IOException e) {
                    errors.add(e);
                }
            });
        }

        @Override
        public void onError(Session session, Throwable t) {
            errors.add(t);
        }

        @Override
        public void onClose(Session session, CloseReason closeReason) {
        }
    }

    /** The client side: the first text message and the close code the server sent. */
    private static final class ClientListener implements WebSocket.Listener {
        private final CompletableFuture<String> echo;
        private final CompletableFuture<String> close;
        private final StringBuilder text = new StringBuilder();

        ClientListener(CompletableFuture<String> echo, CompletableFuture<String> close) {
            this.echo = echo;
            this.close = close;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                echo.complete(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            close.complete(Integer.toString(statusCode));
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            close.complete("error " + error);
        }
    }

    /**
     * A web application that ran requests through the connector, some of which made the connector start threads
     * while they ran (bodies that arrive slowly: the request's thread hands its loop to a new one), is undeployed:
     * Tomcat must not report a thread started by it, and its class loader must be collected.
     */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void undeployedApplicationsClassLoaderIsCollected(ConnectorUnderTest which) throws Exception {
        LogCapture logs = LogCapture.start("org.apache.catalina.loader");
        try (SamplesServer server = new SamplesServer(which)) {
            Context ctx = (Context) server.tomcat.getHost().findChild("/samples");
            WeakReference<ClassLoader> loader = new WeakReference<>(ctx.getLoader().getClassLoader());
            slowUploads(server, 8);
            assertTrue(server.connector.getProtocolHandler().getExecutor() != null);
            server.tomcat.getHost().removeChild(ctx);
            ctx = null;
            List<String> started = logs.messages().stream()
                    .filter(m -> m.contains("appears to have started a thread")).toList();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (loader.get() != null && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(50);
            }
            assertNull(loader.get(), which + ": the undeployed application's class loader is still reachable");
            assertEquals(List.of(), started, which + ": threads reported at undeploy");
        } finally {
            logs.close();
        }
    }

    /** {@code n} uploads at once, each body in two halves 300 ms apart: each request waits for its body. */
    private static void slowUploads(SamplesServer server, int n) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            String half = "y".repeat(5000);
            for (int i = 0; i < n; i++) {
                Socket s = server.connect();
                sockets.add(s);
                RawHttp.send(s, "POST /samples/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10000\r\n\r\n" +
                        half);
            }
            Thread.sleep(300);
            for (Socket s : sockets) {
                OutputStream out = s.getOutputStream();
                out.write(half.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            for (Socket s : sockets) {
                InputStream in = s.getInputStream();
                RawHttp.Response r = RawHttp.read(in, true);
                assertEquals(200, r.status(), r.head());
                assertTrue(r.text().startsWith("bytes=10000 "), r.text());
            }
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /** Collects java.util.logging records of some loggers while a test runs. */
    /**
     * The connector's WARN at start when {@code maxConnections} (8192) exceeds what the descriptor limit allows: CI runs
     * the tests under {@code ulimit -n 1024}, so it is logged at every start there; it is not logged at stop.
     */
    private static boolean isStartDescriptorWarning(String message) {
        return message.contains("maxConnections=") && message.contains("file descriptor limit");
    }

    static final class LogCapture extends Handler implements AutoCloseable {
        private final List<Logger> loggers = new ArrayList<>();
        private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());

        static LogCapture start(String... names) {
            LogCapture c = new LogCapture();
            c.setLevel(Level.ALL);
            for (String name : names) {
                Logger l = Logger.getLogger(name);
                l.addHandler(c);
                c.loggers.add(l);
            }
            return c;
        }

        List<String> messages() {
            synchronized (records) {
                return records.stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": " +
                        (r.getParameters() == null ? r.getMessage() :
                                java.text.MessageFormat.format(r.getMessage(), r.getParameters())) +
                        (r.getThrown() == null ? "" : " " + r.getThrown())).toList();
            }
        }

        /** @return WARN and SEVERE records so far, and forgets them */
        List<String> warnings() {
            synchronized (records) {
                List<String> w = new ArrayList<>();
                for (LogRecord r : records) {
                    if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                        w.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage() +
                                (r.getThrown() == null ? "" : " " + r.getThrown()));
                    }
                }
                records.clear();
                return w;
            }
        }

        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            for (Logger l : loggers) {
                l.removeHandler(this);
            }
        }
    }
}
