package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.hybridconnector.loop.ComputePriority;

import org.junit.jupiter.api.Test;

/**
 * Requests known to compute run one step below normal priority (nice 1) and their thread comes back to normal after:
 * by {@code setpriority(2)} in a JVM started without options, and by the JVM in one started with
 * {@code -XX:ThreadPriorityPolicy=1} (this class runs in both: the connector's pom). Stock NIO runs the same request
 * at nice 0, in the same body.
 */
class ComputePriorityTest {

    @Test
    void aComputingRequestRunsBelowNormalAndItsThreadComesBack() throws Exception {
        String how = ComputePriority.jvmAppliesPriorities() ? "by the JVM" : "by setpriority";
        assertEquals("4 (nice 1, " + how + ")", new ComputePriority(4).toString());
        assertEquals("computed 30 1 nice 0", niceOfAComputingRequest("org.apache.coyote.http11.Http11NioProtocol"));
        assertEquals("computed 30 1 nice 1", niceOfAComputingRequest(HybridHttp11Protocol.class.getName(), "loops", "1"));
    }

    /** Teaches the server that {@code /compute} computes, then asks one more whose servlet reports its nice value. */
    private static String niceOfAComputingRequest(String protocol, String... attributes) throws Exception {
        try (TestServer server = new TestServer(protocol, attributes); Socket a = server.connect();
                Socket b = server.connect()) {
            for (int i = 0; i < 4; i++) {
                TestServer.get(a, "/compute?ms=30");
                TestServer.get(b, "/compute?ms=30");
            }
            String reported = TestServer.get(a, "/compute?ms=30&nice=1").text();
            if (protocol.equals(HybridHttp11Protocol.class.getName())) {
                assertTrue(server.hybrid().stats().getComputePriorityLowered() > 0, "ComputePriorityLowered");
            }
            TestServer.get(b, "/size?kb=0.1");
            List<String> niced = connectorThreadsAboveNormal();
            assertTrue(niced.isEmpty(), protocol + ": threads left below normal priority: " + niced);
            return reported;
        }
    }

    private static List<String> connectorThreadsAboveNormal() throws IOException {
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
