package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.hybridconnector.loop.LoopCounters;

import org.apache.catalina.LifecycleState;

import org.junit.jupiter.api.Test;

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
        AtomicInteger n = new AtomicInteger();
        return Executors.newFixedThreadPool(8, r -> {
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
