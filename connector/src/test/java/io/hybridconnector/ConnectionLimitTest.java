package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * At {@code maxConnections} the least-recently-used idle keep-alive connection makes room for a new client, at once and
 * without polling (issue 16: the acceptor slept 10 ms and 1 ms in loops); a connection inside a request is never
 * evicted.
 */
class ConnectionLimitTest {

    @Test
    void newClientEvictsLeastRecentlyUsedIdleConnection() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "maxConnections", "3");
                Socket a = server.connect(); Socket b = server.connect(); Socket c = server.connect()) {
            assertEquals(200, TestServer.get(a, "/size?kb=0.1").status());
            Thread.sleep(20);
            assertEquals(200, TestServer.get(b, "/size?kb=0.1").status());
            Thread.sleep(20);
            assertEquals(200, TestServer.get(c, "/size?kb=0.1").status());
            Thread.sleep(20);
            try (Socket d = server.connect()) {
                long start = System.nanoTime();
                assertEquals(200, TestServer.get(d, "/size?kb=0.1").status());
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis < 1000, "the new client waited " + millis + " ms");
            }
            assertTrue(closedByServer(a), "the least-recently-used connection was not closed");
            assertEquals(200, TestServer.get(c, "/size?kb=0.1").status());
        }
    }

    /** A socket whose options cannot be set is closed at once and gives its place back, as with stock NIO. */
    @Test
    void socketThatFailsSetUpIsClosedAndNotCounted() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "maxConnections", "2",
                "socket.txBufSize", "0")) {
            for (int i = 0; i < 3; i++) {
                try (Socket s = server.connect()) {
                    TestServer.sendGet(s, "/size?kb=0.1");
                    assertTrue(closedByServer(s), "connection " + i + " was left open");
                }
            }
            // Three clients got through a limit of two; what is left is the acceptor's place for the next client.
            assertTrue(server.hybrid().getConnectionCount() <= 1, "leaked: " + server.hybrid().getConnectionCount());
        }
    }

    /** A client waiting at the limit is admitted within 50 ms when an idle connection exists; the busy one stays. */
    @Test
    void waitingClientIsAdmittedPromptlyAndARequestIsNeverEvicted() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "maxConnections", "3");
                Socket busy = server.connect(); Socket a = server.connect(); Socket b = server.connect()) {
            // The busy connection's request was read first: it is the least recently read, but inside a request.
            CompletableFuture<TestServer.Response> busyResponse = CompletableFuture.supplyAsync(() -> {
                try {
                    return TestServer.get(busy, "/block?ms=1500");
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(100);
            assertEquals(200, TestServer.get(a, "/size?kb=0.1").status());
            Thread.sleep(20);
            assertEquals(200, TestServer.get(b, "/size?kb=0.1").status());
            Thread.sleep(20);
            for (int i = 0; i < 3; i++) { // warm: each round evicts the least recently used idle one
                long start = System.nanoTime();
                try (Socket c = server.connect()) {
                    assertEquals(200, TestServer.get(c, "/size?kb=0.1").status());
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    if (i == 2) {
                        assertTrue(millis < 50, "the waiting client was admitted after " + millis + " ms");
                    }
                }
                Thread.sleep(50); // the closed client's place counts down
            }
            TestServer.Response r = busyResponse.get(10, TimeUnit.SECONDS);
            assertEquals("slept 1500", r.text(), "the connection inside a request was evicted");
        }
    }

    /**
     * With every connection inside a request, a client waits without the acceptor polling, and is admitted as soon as
     * a connection goes idle; the connections inside requests finish.
     */
    @Test
    void aClientWaitsWithoutPollingUntilAConnectionGoesIdle() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "maxConnections", "2",
                "acceptMode", "acceptor");
                Socket a = server.connect(); Socket b = server.connect()) {
            assertEquals(200, TestServer.get(a, "/size?kb=0.1").status());
            assertEquals(200, TestServer.get(b, "/size?kb=0.1").status());
            CompletableFuture<Long> aDone = CompletableFuture.supplyAsync(() -> timedGet(a, "/block?ms=1500"));
            CompletableFuture<Long> bDone = CompletableFuture.supplyAsync(() -> timedGet(b, "/block?ms=2500"));
            Thread.sleep(200);
            try (Socket c = server.connect()) {
                TestServer.sendGet(c, "/size?kb=0.1");
                Thread acceptor = acceptorThread();
                ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                ThreadInfo before = mx.getThreadInfo(acceptor.getId());
                long cpuBefore = mx.getThreadCpuTime(acceptor.getId());
                Thread.sleep(1000); // at the limit, both connections inside requests, a client waiting
                ThreadInfo after = mx.getThreadInfo(acceptor.getId());
                long sleeps = after.getWaitedCount() - before.getWaitedCount();
                long cpuMicros = (mx.getThreadCpuTime(acceptor.getId()) - cpuBefore) / 1000;
                System.out.println("acceptor over 1 s at the limit: " + sleeps + " sleeps, " + cpuMicros + " us CPU");
                assertTrue(sleeps <= 1, "the acceptor slept " + sleeps + " times in 1 s: it polls");
                TestServer.Response r = TestServer.readResponse(c.getInputStream());
                long admitted = System.nanoTime();
                assertEquals(200, r.status());
                long aAt = aDone.get(10, TimeUnit.SECONDS);
                long millis = (admitted - aAt) / 1_000_000;
                assertTrue(millis < 50, "the waiting client was served " + millis + " ms after a connection went idle");
                assertTrue(bDone.get(10, TimeUnit.SECONDS) > aAt, "the request on b finished");
            }
        }
    }

    /** @return when the response arrived (nanoTime); fails unless it is the whole 200 */
    private static long timedGet(Socket s, String path) {
        try {
            TestServer.Response r = TestServer.get(s, path);
            if (r.status() != 200 || !r.text().startsWith("slept")) {
                throw new AssertionError("request on a busy connection failed: " + r.status() + " " + r.text());
            }
            return System.nanoTime();
        } catch (Exception e) {
            throw new AssertionError("a connection inside a request was closed", e);
        }
    }

    private static Thread acceptorThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().endsWith("-Acceptor")) {
                return t;
            }
        }
        throw new AssertionError("no acceptor thread");
    }

    private static boolean closedByServer(Socket s) throws Exception {
        s.setSoTimeout(2000);
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }
}
