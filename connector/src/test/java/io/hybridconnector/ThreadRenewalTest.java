package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.ThreadLocalLeakPreventionListener;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

import org.junit.jupiter.api.Test;

/**
 * Thread renewal (issue 39, item 2): with Tomcat's {@code ThreadLocalLeakPreventionListener} on the server, a web
 * application that left a thread local on the threads that ran its requests is undeployed; afterwards no thread that
 * ran it is alive and the values it left are collected, while requests of another application go on, over connections
 * opened before (none dropped) and new ones, and a request running through the undeploy completes. Ours before the
 * fix: the listener passed our pool by (not Tomcat's executor type) and every loop thread kept the values.
 * <p>
 * Stock NIO in the same body. Stock renews a thread when it finishes a task, one per {@code threadRenewalDelay} (1 s),
 * and an idle one once its idle time (60 s) passes; both are shortened on stock's executor so that it renews within
 * this test's bound, which ours meets with no setting.
 */
class ThreadRenewalTest {

    private static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();

    @Test
    void threadsThatRanAStoppedApplicationAreReplacedWithoutDroppingConnections() throws Exception {
        for (String protocol : new String[] { NIO, HYBRID }) {
            renewsAfterUndeploy(protocol);
        }
    }

    private static void renewsAfterUndeploy(String protocol) throws Exception {
        LeakServlet.reset();
        File base = Files.createTempDirectory("hybrid-renewal").toFile();
        Tomcat tomcat = new Tomcat();
        ExecutorService clients = Executors.newCachedThreadPool();
        try {
            tomcat.setBaseDir(base.getAbsolutePath());
            tomcat.getServer().addLifecycleListener(new ThreadLocalLeakPreventionListener());
            Connector connector = new Connector(protocol);
            connector.setPort(0);
            // Stock's default (100) closes a keep-alive connection after its 100th request; ours keeps it (-1).
            assertTrue(connector.setProperty("maxKeepAliveRequests", "-1"));
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            File appDir = new File(base, "app");
            File rootDir = new File(base, "root");
            assertTrue(appDir.mkdir() && rootDir.mkdir());
            Context app = tomcat.addContext("/app", appDir.getAbsolutePath());
            Tomcat.addServlet(app, "leak", new LeakServlet());
            app.addServletMappingDecoded("/leak", "leak");
            Context root = tomcat.addContext("", rootDir.getAbsolutePath());
            Tomcat.addServlet(root, "block", new TestServer.BlockServlet());
            root.addServletMappingDecoded("/block", "block");
            tomcat.start();
            int port = connector.getLocalPort();
            if (protocol.equals(NIO)) {
                ThreadPoolExecutor stock = (ThreadPoolExecutor) connector.getProtocolHandler().getExecutor();
                stock.setThreadRenewalDelay(10);
                stock.setKeepAliveTime(200, TimeUnit.MILLISECONDS);
            }

            // The application leaves its thread local on many threads: light requests (ours: on the loops' leaders),
            // requests that block (ours: on threads whose loop moved away, which then park), from 8 connections.
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                sockets.add(connect(port));
            }
            List<Future<?>> leaks = new ArrayList<>();
            for (Socket s : sockets) {
                leaks.add(clients.submit(() -> {
                    for (int i = 0; i < 5; i++) {
                        assertEquals(200, TestServer.get(s, "/app/leak").status());
                        assertEquals(200, TestServer.get(s, "/app/leak?ms=20").status());
                    }
                    return null;
                }));
            }
            for (Future<?> f : leaks) {
                f.get(30, TimeUnit.SECONDS);
            }
            int leakedOn = LeakServlet.THREADS.size();
            assertTrue(leakedOn >= 2, "the application ran on " + leakedOn + " threads");

            // A request of the other application runs through the undeploy on a connection that ran the leak.
            Socket inFlight = sockets.get(0);
            TestServer.sendGet(inFlight, "/block?ms=1500");
            Thread.sleep(200);
            long stopAt = System.nanoTime();
            tomcat.getHost().removeChild(app);
            app = null;

            // Traffic to the other application while threads renew: over the connections opened before, and new ones.
            AtomicBoolean trafficOn = new AtomicBoolean(true);
            AtomicInteger served = new AtomicInteger();
            List<String> failures = new CopyOnWriteArrayList<>();
            List<Future<?>> traffic = new ArrayList<>();
            for (Socket s : sockets.subList(1, sockets.size())) {
                traffic.add(clients.submit(() -> drive(s, port, trafficOn, served, failures)));
            }
            traffic.add(clients.submit(() -> drive(null, port, trafficOn, served, failures)));

            long deadline = stopAt + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && !LeakServlet.allCollected()) {
                System.gc();
                Thread.sleep(50);
            }
            double renewedAfter = (System.nanoTime() - stopAt) / 1e9;
            trafficOn.set(false);
            for (Future<?> f : traffic) {
                f.get(30, TimeUnit.SECONDS);
            }
            TestServer.Response slow = TestServer.readResponse(inFlight.getInputStream());
            List<String> alive = LeakServlet.THREADS.stream().filter(Thread::isAlive).map(Thread::getName)
                    .collect(Collectors.toList());
            String report = protocol + ": the application ran on " + leakedOn + " threads; after " +
                    String.format("%.2f", renewedAfter) + " s alive: " + alive + ", values left: " +
                    LeakServlet.uncollected() + ", requests served meanwhile: " + served + ", failures: " + failures;
            System.out.println("[renewal] " + report);
            assertEquals(200, slow.status(), "the request running through the undeploy");
            assertTrue(failures.isEmpty(), report);
            assertTrue(served.get() > 0, report);
            assertTrue(alive.isEmpty(), report);
            assertEquals(0, LeakServlet.uncollected(), report);
            for (Socket s : sockets) {
                assertEquals(200, TestServer.get(s, "/block?ms=0").status(), "a connection opened before");
                s.close();
            }
        } finally {
            clients.shutdownNow();
            try {
                tomcat.stop();
                tomcat.destroy();
            } finally {
                TempDirs.deleteRecursively(base.toPath());
            }
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(20000);
        return s;
    }

    /** Requests to the other application until told to stop: on {@code kept}, or on a new connection each time. */
    private static Void drive(Socket kept, int port, AtomicBoolean on, AtomicInteger served, List<String> failures) {
        while (on.get()) {
            try {
                if (kept != null) {
                    check(TestServer.get(kept, "/block?ms=0"), served, failures);
                } else {
                    try (Socket s = connect(port)) {
                        check(TestServer.get(s, "/block?ms=0"), served, failures);
                    }
                }
                Thread.sleep(5);
            } catch (IOException | RuntimeException e) {
                failures.add(e.toString());
                return null;
            } catch (InterruptedException e) {
                return null;
            }
        }
        return null;
    }

    private static void check(TestServer.Response r, AtomicInteger served, List<String> failures) {
        if (r.status() == 200) {
            served.incrementAndGet();
        } else {
            failures.add("status " + r.status());
        }
    }

    /** What the application leaves in its thread local: only a thread's thread-local map holds it. */
    static final class Leaked {
    }

    /** Leaves a {@link Leaked} in a thread local of every thread it runs on; sleeps {@code ?ms=} first if given. */
    static final class LeakServlet extends HttpServlet {
        static final ThreadLocal<Leaked> LEAK = new ThreadLocal<>();
        static final Set<Thread> THREADS = ConcurrentHashMap.newKeySet();
        static final List<WeakReference<Leaked>> VALUES = new CopyOnWriteArrayList<>();

        static void reset() {
            THREADS.clear();
            VALUES.clear();
        }

        static int uncollected() {
            return (int) VALUES.stream().filter(r -> r.get() != null).count();
        }

        static boolean allCollected() {
            return uncollected() == 0;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (LEAK.get() == null) {
                Leaked value = new Leaked();
                LEAK.set(value);
                VALUES.add(new WeakReference<>(value));
            }
            THREADS.add(Thread.currentThread());
            String ms = req.getParameter("ms");
            if (ms != null) {
                try {
                    Thread.sleep(Long.parseLong(ms));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = "leaked".getBytes(StandardCharsets.US_ASCII);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }
}
