package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.hybridconnector.loop.LoopCounters;

import org.apache.catalina.LifecycleState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * An executor given to the connector ({@code executor="..."} in server.xml, Spring Boot's virtual threads,
 * {@code useVirtualThreads="true"}) is accepted as on stock NIO, and requests that block run on it; and Tomcat's
 * {@code ThreadPool} MBean means what it means on stock NIO (actuator's {@code tomcat.threads.busy} and
 * {@code tomcat.connections.keepalive.current}). Each test runs stock NIO and ours in the same body.
 */
class ExecutorTest {

    private static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final String PREFIX = "operator-exec-";

    @Test
    void requestsThatBlockRunOnTheOperatorsExecutorWhileLightOnesStayOnTheLoop() throws Exception {
        for (String protocol : new String[] { NIO, HYBRID }) {
            ExecutorService executor = namedPool();
            try (TestServer server = TestServer.withExecutor(protocol, executor);
                    Socket blocking = server.connect(); Socket light = server.connect()) {
                List<String> threads = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    threads.add(TestServer.get(blocking, "/block?ms=30&thread").text());
                }
                String lightThread = TestServer.get(light, "/block?ms=0&thread").text();
                if (protocol.equals(NIO)) {
                    threads.forEach(t -> assertTrue(t.contains(PREFIX), "stock NIO ran a request on " + t));
                    assertTrue(lightThread.contains(PREFIX), lightThread);
                } else {
                    // The first request blocks on a connector thread (nothing told us it would); the next ones of
                    // that connection start on the executor.
                    assertFalse(threads.get(0).contains(PREFIX), threads.get(0));
                    threads.subList(1, 6).forEach(t -> assertTrue(t.contains(PREFIX), "ran on " + t + ": " + threads));
                    assertFalse(lightThread.contains(PREFIX), "a light request left its loop: " + lightThread);
                    // Counted as executor runs, or as time-sliced ones if the first request's thread used the CPU
                    // (class loading on a busy machine) and the loops time-sliced for a moment: both on the executor.
                    LoopCounters c = server.hybrid().counters();
                    assertTrue(c.getExecutorRuns() + c.getTimeSlicedRuns() >= 5,
                            "executor runs: " + c.getExecutorRuns() + ", time-sliced runs " + c.getTimeSlicedRuns());
                }
            } finally {
                executor.shutdownNow();
                assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * A path whose first requests wait and whose later ones do not comes back to the loops although its requests run on
     * the operator's executor once learnt: each of those runs is judged there. Before, nothing judged them, and the
     * path stayed on the executor for good after two blocks (40 of 40 later requests ran there). Stock NIO runs
     * every request on the executor; ours keeps the later ones inline once the path turned short.
     */
    @Test
    void aPathThatStopsBlockingComesBackFromTheOperatorsExecutor() throws Exception {
        for (String protocol : new String[] { NIO, HYBRID }) {
            ExecutorService executor = namedPool();
            TestServer.ColdStartServlet.slowLeft.set(3);
            try (TestServer server = TestServer.withExecutor(protocol, executor)) {
                List<String> threads = new ArrayList<>();
                for (int i = 0; i < 43; i++) {
                    try (Socket s = server.connect()) { // a new connection each: only the path's class decides
                        threads.add(TestServer.get(s, "/cold").text());
                    }
                }
                List<String> later = threads.subList(13, 43);
                if (protocol.equals(NIO)) {
                    later.forEach(t -> assertTrue(t.startsWith(PREFIX), "stock NIO ran a request on " + t));
                } else {
                    later.forEach(t -> assertFalse(t.startsWith(PREFIX), "still on the executor: " + threads));
                }
            } finally {
                TestServer.ColdStartServlet.slowLeft.set(0);
                executor.shutdownNow();
                assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * Operators' case (issue 39, item 3): a burst of blocking requests on new connections, as a browser page or a
     * client pool makes them, runs on the operator's executor, its size bounding them and its active count counting
     * them, on ours as on stock, once the requests' class is known to block. It becomes known while the first two
     * still sleep: the stall detector learns the class when it moves their loop, not when they end. Before, each new
     * connection's first request started inline and blocked a connector thread for its whole length.
     */
    @Test
    void aBurstOfBlockingRequestsOnNewConnectionsRunsOnTheOperatorsExecutor() throws Exception {
        int burst = 12;
        for (String protocol : new String[] { NIO, HYBRID }) {
            ThreadPoolExecutor executor = namedPool(burst + 2);
            ExecutorService clients = Executors.newFixedThreadPool(burst + 2);
            try (TestServer server = TestServer.withExecutor(protocol, executor)) {
                // Two requests of a class nothing has seen yet, still sleeping when the burst comes.
                List<Future<TestServer.Response>> first = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    first.add(clients.submit(() -> getOnNewConnection(server, "/block?ms=3000&thread")));
                }
                Thread.sleep(300);
                List<Future<TestServer.Response>> later = new ArrayList<>();
                for (int i = 0; i < burst; i++) {
                    later.add(clients.submit(() -> getOnNewConnection(server, "/block?ms=1000&thread")));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int mostActive = 0;
                while (!later.stream().allMatch(Future::isDone) && System.nanoTime() < deadline) {
                    mostActive = Math.max(mostActive, executor.getActiveCount());
                    Thread.sleep(20);
                }
                for (Future<TestServer.Response> f : later) {
                    String thread = f.get(10, TimeUnit.SECONDS).text();
                    assertTrue(thread.contains(PREFIX), protocol + " ran a request of the burst on " + thread);
                }
                assertTrue(mostActive >= burst, protocol + ": the executor counted at most " + mostActive + " active");
                for (Future<TestServer.Response> f : first) {
                    assertEquals(200, f.get(10, TimeUnit.SECONDS).status());
                }
            } finally {
                clients.shutdownNow();
                executor.shutdownNow();
                assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * Operators' case (issue 39, item 7): with {@code useVirtualThreads="true"}, a burst of blocking requests on new
     * connections parks virtual threads, not the connector's platform threads: more of them than {@code threads} wait
     * at once, and the burst takes about one request's length, as on stock. Before, every request of the burst
     * started inline and blocked a platform thread (Boot, JDK 25, 400 connections asking for 2 s: 6.0-6.8 s, stock
     * 2.5-3.2 s). Runs on Java 21+ (the {@code jdk25} profile runs this class again on a JDK 25 where one is
     * installed); on 17 neither connector starts with virtual threads ({@link #useVirtualThreadsBehavesAsOnStockNio}).
     */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void aBurstOfBlockingRequestsParksVirtualThreadsNotConnectorThreads() throws Exception {
        int threads = 20;
        int burst = 3 * threads;
        long sleepMillis = 1000;
        for (String protocol : new String[] { NIO, HYBRID }) {
            ExecutorService clients = Executors.newFixedThreadPool(burst + 2);
            try (TestServer server = new TestServer(protocol, "useVirtualThreads", "true", "maxThreads",
                    Integer.toString(threads))) {
                List<Future<TestServer.Response>> first = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    first.add(clients.submit(() -> getOnNewConnection(server, "/block?ms=3000&thread")));
                }
                Thread.sleep(300);
                long start = System.nanoTime();
                List<Future<TestServer.Response>> later = new ArrayList<>();
                for (int i = 0; i < burst; i++) {
                    later.add(clients.submit(() -> getOnNewConnection(server, "/block?ms=" + sleepMillis + "&thread")));
                }
                for (Future<TestServer.Response> f : later) {
                    String thread = f.get(30, TimeUnit.SECONDS).text();
                    assertTrue(thread.startsWith("VirtualThread"), protocol + " ran a request of the burst on " + thread);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("%s, useVirtualThreads, maxThreads=%d: %d new connections each blocking %d ms served "
                        + "in %d ms%n", protocol, threads, burst, sleepMillis, millis);
                // On platform threads the burst would take three request lengths (three waves of 'threads').
                assertTrue(millis < 2 * sleepMillis, protocol + " took " + millis + " ms");
                for (Future<TestServer.Response> f : first) {
                    assertEquals(200, f.get(10, TimeUnit.SECONDS).status());
                }
            } finally {
                clients.shutdownNow();
            }
        }
    }

    private static TestServer.Response getOnNewConnection(TestServer server, String path) throws IOException {
        try (Socket s = server.connect()) {
            return TestServer.get(s, path);
        }
    }

    /** On a JDK with virtual threads both start and block on virtual threads; on 17 both refuse to start, alike. */
    @Test
    void useVirtualThreadsBehavesAsOnStockNio() throws Exception {
        boolean virtualThreads = Runtime.version().feature() >= 21;
        for (String protocol : new String[] { NIO, HYBRID }) {
            TestServer server;
            try {
                server = new TestServer(protocol, "useVirtualThreads", "true");
            } catch (Exception e) {
                assertFalse(virtualThreads, protocol + " did not start on Java " + Runtime.version() + ": " + e);
                continue;
            }
            try (TestServer s = server; Socket blocking = s.connect()) {
                if (s.connector.getState() != LifecycleState.STARTED) {
                    assertFalse(virtualThreads, protocol + " is " + s.connector.getState());
                    continue;
                }
                assertTrue(virtualThreads, protocol + " started without virtual threads");
                String last = "";
                for (int i = 0; i < 3; i++) {
                    last = TestServer.get(blocking, "/block?ms=30&thread").text();
                }
                assertTrue(last.startsWith("VirtualThread"), protocol + " ran a blocking request on " + last);
            }
        }
    }

    @Test
    void busyThreadsAndKeepAliveConnectionsMeanWhatTheyMeanOnStockNio() throws Exception {
        for (String protocol : new String[] { NIO, HYBRID }) {
            try (TestServer server = new TestServer(protocol, "maxThreads", "50")) {
                ObjectName pool = threadPoolMBean(server.port);
                List<Socket> idle = new ArrayList<>();
                try {
                    for (int i = 0; i < 5; i++) {
                        Socket s = server.connect();
                        idle.add(s);
                        assertEquals(200, TestServer.get(s, "/size?kb=0.1").status());
                    }
                    awaitAttribute(pool, "keepAliveCount", 5, protocol);
                    awaitAttribute(pool, "currentThreadsBusy", 0, protocol);

                    ExecutorService clients = Executors.newFixedThreadPool(10);
                    try {
                        List<Future<TestServer.Response>> sleeping = new ArrayList<>();
                        for (int i = 0; i < 10; i++) {
                            sleeping.add(clients.submit(() -> {
                                try (Socket s = server.connect()) {
                                    return TestServer.get(s, "/block?ms=1500");
                                }
                            }));
                        }
                        awaitAttribute(pool, "currentThreadsBusy", 10, protocol);
                        for (Future<TestServer.Response> f : sleeping) {
                            assertEquals(200, f.get(10, TimeUnit.SECONDS).status());
                        }
                    } finally {
                        clients.shutdownNow();
                    }
                    awaitAttribute(pool, "currentThreadsBusy", 0, protocol);
                } finally {
                    for (Socket s : idle) {
                        s.close();
                    }
                }
            }
        }
    }

    private static ExecutorService namedPool() {
        return namedPool(8);
    }

    private static ThreadPoolExecutor namedPool(int threads) {
        AtomicInteger n = new AtomicInteger();
        return (ThreadPoolExecutor) Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, PREFIX + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Tomcat's {@code ThreadPool} MBean of the connector on {@code port}, as Micrometer's TomcatMetrics reads it. */
    private static ObjectName threadPoolMBean(int port) throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = mbs.queryNames(new ObjectName("Tomcat:type=ThreadPool,*"), null);
        for (ObjectName name : names) {
            if (Integer.valueOf(port).equals(mbs.getAttribute(name, "localPort"))) {
                return name;
            }
        }
        throw new AssertionError("no ThreadPool MBean for port " + port + " among " + names);
    }

    /** Waits up to 5 s for {@code attribute} to read {@code expected}. */
    private static void awaitAttribute(ObjectName name, String attribute, int expected, String protocol)
            throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Object value;
        do {
            value = mbs.getAttribute(name, attribute);
            if (value instanceof Integer && (Integer) value == expected) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(protocol + ": " + attribute + " is " + value + ", expected " + expected);
    }
}
