package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The connector changes no thread's priority: while requests compute beside light ones (the case where it once lowered
 * the computing requests' threads to nice 1-4 by {@code setpriority(2)}), every thread of this JVM keeps the nice value
 * of the thread that started Tomcat, and so does a thread a servlet starts during a computing request (it once inherited
 * the lowered value for life). Read from {@code /proc/self/task/<tid>/stat}, where the kernel keeps it.
 */
class ThreadNiceTest {

    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final java.util.regex.Pattern NICE = java.util.regex.Pattern.compile("nice (-?\\d+) child (-?\\d+)");

    @Test
    void computingRequestsAndTheThreadsTheyStartKeepTheStartersNiceValue() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "no /proc: not Linux");
        int starter = TestServer.niceOfThisThread();
        try (TestServer server = new TestServer(HYBRID, "loops", "1")) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> load = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                load.add(loop(server, "/compute?ms=20", stop));
            }
            load.add(loop(server, "/size?kb=0.1", stop));
            load.forEach(Thread::start);
            Map<String,Integer> changed = new TreeMap<>();
            long until = System.nanoTime() + 3_000_000_000L;
            try (Socket s = server.connect()) {
                while (System.nanoTime() < until) {
                    // A computing request that reports its own nice value and its child thread's.
                    String body = new String(TestServer.get(s, "/compute?ms=20&nice=1&spawn=1").body(),
                            java.nio.charset.StandardCharsets.US_ASCII);
                    java.util.regex.Matcher m = NICE.matcher(body);
                    assertTrue(m.find(), body);
                    if (Integer.parseInt(m.group(1)) != starter || Integer.parseInt(m.group(2)) != starter) {
                        changed.put("request thread and its child: " + body, Integer.parseInt(m.group(1)));
                    }
                    changed.putAll(threadsNotAt(starter));
                }
            } finally {
                stop.set(true);
                for (Thread t : load) {
                    t.join(10_000);
                }
            }
            io.hybridconnector.loop.LoopCounters c = server.hybrid().counters();
            assertTrue(c.getPredictedHandOffs() + c.getComputedHandOffs() + c.getTimeSlicedRuns() > 0,
                    "no request was seen computing: the test did not test anything");
            assertEquals(Map.of(), changed, "threads whose nice value is not the starter's (" + starter + ")");
        }
    }

    /** @return every thread of this process whose nice value differs from {@code nice}, by name */
    private static Map<String,Integer> threadsNotAt(int nice) throws IOException {
        Map<String,Integer> found = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int n = TestServer.niceIn(stat);
                    if (n != nice) {
                        found.put(stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')), n);
                    }
                } catch (IOException e) {
                    // The thread ended between the listing and the read.
                }
            }
        }
        return found;
    }

    private static Thread loop(TestServer server, String path, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            try (Socket s = server.connect()) {
                while (!stop.get()) {
                    TestServer.get(s, path);
                }
            } catch (IOException e) {
                // Stopped with the server.
            }
        }, "load " + path);
        t.setDaemon(true);
        return t;
    }
}
