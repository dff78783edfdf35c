package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.hybridconnector.loop.ComputePriority;

import org.junit.jupiter.api.Test;

/**
 * Requests known to compute run below normal priority (nice 1, and up to three steps lower as {@code ComputeShare}
 * steers them), and their thread comes back to normal after: by {@code setpriority(2)} in a JVM started without
 * options, and by the JVM in one started with {@code -XX:ThreadPriorityPolicy=1} (this class runs in both: the
 * connector's pom). Stock NIO runs the same requests at nice 0, in the same body.
 */
class ComputePriorityTest {

    private static final String STOCK = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    /** More computing requests than this machine's CPUs, beside the one that reports its nice value. */
    private static final int CROWD = Runtime.getRuntime().availableProcessors() + 1;

    @Test
    void aComputingRequestRunsBelowNormalAndItsThreadComesBack() throws Exception {
        String how = ComputePriority.jvmAppliesPriorities() ? "by the JVM" : "by setpriority";
        assertEquals("4 (nice 1 to 4 as the CPU they get per loop run asks, nice 0 when they need more, "
                + how + ")", new ComputePriority(4).toString());
        assertEquals("1 (nice 4 to " + (ComputePriority.jvmAppliesPriorities() ? 4 : 7) + " as the CPU they get per "
                + "loop run asks, nice 3 when they need more, " + how + ")", new ComputePriority(1).toString(),
                "Java's lowest priority is nice 4");
        assertEquals("computed 30 1 nice 0", niceOfAComputingRequest(STOCK, 0));
        int nice = reportedNice(niceOfAComputingRequest(HYBRID, 0, "loops", "1"));
        assertTrue(nice >= 1 && nice <= 4, "nice " + nice);
    }

    @Test
    void withNoShortRequestsToServeComputingRequestsGoLower() throws Exception {
        assertEquals("computed 30 1 nice 0", niceOfAComputingRequest(STOCK, CROWD));
        try (TestServer server = new TestServer(HYBRID, "loops", "1"); Socket a = server.connect()) {
            for (int i = 0; i < 4; i++) {
                TestServer.get(a, "/compute?ms=30");
            }
            List<Socket> crowd = new ArrayList<>();
            try {
                for (int i = 0; i < CROWD; i++) {
                    crowd.add(server.connect());
                }
                // The crowd computes 40 ms a request, back to back, with no short requests beside: per loop run they
                // get far more CPU than stock's time slicing gives, so the steps go down.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (server.hybrid().stats().getComputeStepsDown() == 0 && System.nanoTime() < deadline) {
                    for (Socket c : crowd) {
                        TestServer.sendGet(c, "/compute?ms=40");
                    }
                    for (Socket c : crowd) {
                        assertEquals(200, TestServer.readResponse(c.getInputStream()).status());
                    }
                }
                assertTrue(server.hybrid().stats().getComputeSteps() >= 1, "ComputeSteps");
                int nice = reportedNice(TestServer.get(a, "/compute?ms=30&nice=1").text());
                assertTrue(nice >= 2, "nice " + nice + " after a step down");
                TestServer.get(a, "/size?kb=0.1");
                List<String> niced = connectorThreadsLeftBelowNormal();
                assertTrue(niced.isEmpty(), "threads left below normal priority: " + niced);
            } finally {
                for (Socket c : crowd) {
                    c.close();
                }
            }
        }
    }

    private static int reportedNice(String reported) {
        return Integer.parseInt(reported.substring(reported.lastIndexOf(' ') + 1).trim());
    }

    /**
     * Teaches the server that {@code /compute} computes, starts {@code beside} requests computing 600 ms on
     * connections of their own, then asks one more whose servlet reports its nice value.
     */
    private static String niceOfAComputingRequest(String protocol, int beside, String... attributes) throws Exception {
        try (TestServer server = new TestServer(protocol, attributes); Socket a = server.connect();
                Socket b = server.connect()) {
            for (int i = 0; i < 4; i++) {
                TestServer.get(a, "/compute?ms=30");
                TestServer.get(b, "/compute?ms=30");
            }
            List<Socket> crowd = new ArrayList<>();
            try {
                for (int i = 0; i < beside; i++) {
                    Socket c = server.connect();
                    crowd.add(c);
                    TestServer.sendGet(c, "/compute?ms=600");
                }
                Thread.sleep(beside > 0 ? 100 : 0); // they are in their lanes
                String reported = TestServer.get(a, "/compute?ms=30&nice=1").text();
                for (Socket c : crowd) {
                    assertEquals(200, TestServer.readResponse(c.getInputStream()).status());
                }
                if (protocol.equals(HYBRID)) {
                    assertTrue(server.hybrid().stats().getComputePriorityLowered() > 0, "ComputePriorityLowered");
                }
                TestServer.get(b, "/size?kb=0.1");
                List<String> niced = connectorThreadsLeftBelowNormal();
                assertTrue(niced.isEmpty(), protocol + ": threads left below normal priority: " + niced);
                return reported;
            } finally {
                for (Socket c : crowd) {
                    c.close();
                }
            }
        }
    }

    /**
     * The connector threads still below normal priority once the last computing request's thread has had time to
     * restore itself: the client has the whole response before that thread leaves the servlet and restores its
     * priority (or ends, where it cannot), so a look right after the response may see it still lowered. Waits up to a
     * second for that.
     */
    private static List<String> connectorThreadsLeftBelowNormal() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        List<String> niced = connectorThreadsBelowNormal();
        while (!niced.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
            niced = connectorThreadsBelowNormal();
        }
        return niced;
    }

    private static List<String> connectorThreadsBelowNormal() throws IOException {
        List<String> niced = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    int nice = TestServer.niceIn(stat);
                    if (name.startsWith("http-") && nice > 0) {
                        niced.add(name + " nice " + nice);
                    }
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        }
        return niced;
    }
}
