package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The fast path keeps read, servlet and write on the thread that selected the socket, and a blocked request
 * moves its loop, not the other connections' requests.
 */
class SameThreadTest {

    static final String HYBRID = HybridHttp11Protocol.class.getName();

    @Test
    void servletRunsInsideTheSelectingLoopWithNoHandOff() throws Exception {
        try (TestServer server = new TestServer(HYBRID); Socket s = server.connect()) {
            // The first requests load classes, initialise the servlet and get compiled (lock waits, milliseconds
            // of work), which may legitimately move the loop; the fast path is what follows.
            for (int i = 0; i < 200; i++) {
                TestServer.get(s, "/thread");
            }
            // A request that the machine stalls for two of the detector's ticks (CI runs other JVMs beside this
            // one) is moved too, as it should be; the fast path must show a batch without any hand-off.
            long handOffs = -1;
            for (int batch = 0; batch < 3 && handOffs != 0; batch++) {
                server.hybrid().resetCounters();
                for (int i = 0; i < 20; i++) {
                    TestServer.Response r = TestServer.get(s, "/thread");
                    assertEquals(200, r.status());
                    assertTrue(r.text().contains("io.hybridconnector.loop.EventLoop.lead"),
                            "servlet did not run inside the selector loop:\n" + r.text());
                }
                handOffs = server.hybrid().getHandOffs();
            }
            assertEquals(0, handOffs, "hand-offs on the fast path, in each of 3 batches of 20 requests");
            assertTrue(server.hybrid().getRequestsInline() >= 20,
                    "inline runs in the last batch of 20: " + server.hybrid().getRequestsInline());
        }
    }

    @Test
    void sleepingRequestDoesNotDelayOtherConnections() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1"); Socket sleeper = server.connect()) {
            // Warm up the path so that class loading does not count against the budget.
            try (Socket warm = server.connect()) {
                TestServer.get(warm, "/size?kb=0.1");
            }
            List<Socket> others = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                others.add(server.connect());
            }
            TestServer.sendGet(sleeper, "/block?ms=2000");
            Thread.sleep(50); // the sleeper is inside the servlet on the only loop
            long start = System.nanoTime();
            for (Socket s : others) {
                TestServer.sendGet(s, "/size?kb=0.1");
            }
            for (Socket s : others) {
                assertEquals(200, TestServer.readResponse(s.getInputStream()).status());
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 200, "100 requests took " + millis + " ms behind a sleeping request");
            TestServer.Response slept = TestServer.readResponse(sleeper.getInputStream());
            assertEquals("slept 2000", slept.text());
            assertTrue(server.hybrid().getHandOffs() >= 1, "the sleeping request was not handed off");
            for (Socket s : others) {
                s.close();
            }
        }
    }

    @Test
    void requestBlockedInTheKernelIsHandedOff() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1"); ServerSocket upstream = new ServerSocket(0);
                Socket waiting = server.connect(); Socket other = server.connect()) {
            TestServer.get(other, "/size?kb=0.1"); // warm up
            Thread database = new Thread(() -> {
                try (Socket db = upstream.accept()) {
                    Thread.sleep(1000);
                    db.getOutputStream().write(42);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            database.start();
            TestServer.sendGet(waiting, "/upstream?port=" + upstream.getLocalPort());
            Thread.sleep(50);
            long start = System.nanoTime();
            assertEquals(102, TestServer.get(other, "/size?kb=0.1").body().length);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 100, "a request waited " + millis + " ms behind one blocked in a socket read");
            assertEquals("upstream 42", TestServer.readResponse(waiting.getInputStream()).text());
            database.join();
        }
    }

    @Test
    void asyncCompletionFromAnotherThread() throws Exception {
        try (TestServer server = new TestServer(HYBRID); Socket s = server.connect()) {
            for (int i = 0; i < 5; i++) {
                assertEquals("async 10", TestServer.get(s, "/async?ms=10").text());
                assertEquals("async 0", TestServer.get(s, "/async?ms=0").text());
            }
            assertEquals(102, TestServer.get(s, "/size?kb=0.1").body().length);
        }
    }
}
