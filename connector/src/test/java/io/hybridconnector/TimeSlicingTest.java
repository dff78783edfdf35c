package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.hybridconnector.loop.LoopCounters;

import org.junit.jupiter.api.Test;

/**
 * Time slicing ({@code timeSlicing="auto"}, the default), through real sockets on a one-loop server: while as many
 * requests as there are CPUs compute off the loop, the loop serves its other connections on pool threads (they get
 * CPU time per thread, as on stock NIO); once nothing computes, the fast path is back (no thread switch). Requests that
 * sleep do not switch it on, nor do computing requests with no lighter one beside them, and {@code timeSlicing="off"}
 * never does.
 */
class TimeSlicingTest {

    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    /** Computing requests beside the light connection: as many as the CPUs switch it on, one more for a late look. */
    private static final int HEAVY = Runtime.getRuntime().availableProcessors() + 1;

    @Test
    void computingRequestsMakeTheLoopServeOnPoolThreadsUntilTheyEnd() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1", "timeSlicing", "auto");
                Socket light = server.connect()) {
            LoopCounters c = slicesBesideComputingRequests(server, light);
            assertTrue(c.getTimeSlicingOn() >= 1, "time slicing never went on");

            pastTheWarmUpsHold(); // and the requests' own hold
            c.reset();
            for (int i = 0; i < 50; i++) {
                assertEquals(102, TestServer.get(light, "/size?kb=0.1").body().length);
            }
            assertEquals(0, c.getTimeSlicedRuns(), "light requests still left the loop after the computing ones ended");
            assertTrue(c.getInlineRuns() >= 50, "inline runs: " + c.getInlineRuns());
        }
    }

    /**
     * Requests that all compute alike (an overload of one page) have no lighter request beside them to put first: on
     * pool threads they only paid switches and widened the tail (3x overload of a 1 ms page: p99 1.53x stock's, against
     * 1.18x inline). Before lighter requests counted, this switched time slicing on.
     */
    @Test
    void computingRequestsWithNothingLighterBesideThemStayInline() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1", "timeSlicing", "auto");
                Socket light = server.connect()) {
            Socket[] heavy = connect(server);
            warmUp(heavy, light, "/compute?ms=1");
            pastTheWarmUpsHold();
            LoopCounters c = server.hybrid().counters();
            c.reset();
            List<CompletableFuture<TestServer.Response>> done = sendAll(heavy, "/compute?ms=300");
            for (CompletableFuture<TestServer.Response> d : done) {
                assertEquals(200, d.get().status());
            }
            assertEquals(0, c.getTimeSlicingOn(), "time slicing went on with no lighter request beside "
                    + HEAVY + " computing ones");
            assertEquals(0, c.getTimeSlicedRuns());
        }
    }

    @Test
    void sleepingRequestsLeaveTheFastPathAlone() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1", "timeSlicing", "auto"); Socket light = server.connect()) {
            Socket[] heavy = connect(server);
            warmUp(heavy, light, "/block?ms=1");
            pastTheWarmUpsHold();
            LoopCounters c = server.hybrid().counters();
            c.reset();
            assertEquals(0, lightRequestsBeside(c, heavy, light, "/block?ms=600"),
                    "light requests left the loop beside requests that only sleep; slicing went on "
                            + c.getTimeSlicingOn() + " times, " + c.getTimeSlicingOnUnevenRounds() + " for uneven runs");
        }
    }

    @Test
    void offMeansInlineWhateverComputes() throws Exception {
        offIsInline(new TestServer(HYBRID, "loops", "1", "timeSlicing", "off"));
    }

    @Test
    void autoIsTheDefault() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1"); Socket light = server.connect()) {
            slicesBesideComputingRequests(server, light);
        }
    }

    /** Asserts that light requests went to pool threads beside computing ones; returns the counters for more. */
    private static LoopCounters slicesBesideComputingRequests(TestServer server, Socket light) throws Exception {
        Socket[] heavy = connect(server);
        warmUp(heavy, light, "/compute?ms=1");
        LoopCounters c = server.hybrid().counters();
        c.reset();
        assertTrue(lightRequestsBeside(c, heavy, light, "/compute?ms=600") > 0,
                "no light request was served on a pool thread beside " + HEAVY + " computing ones");
        return c;
    }

    private static void offIsInline(TestServer started) throws Exception {
        try (TestServer server = started; Socket light = server.connect()) {
            Socket[] heavy = connect(server);
            warmUp(heavy, light, "/compute?ms=1");
            server.hybrid().counters().reset();
            assertEquals(0, lightRequestsBeside(server.hybrid().counters(), heavy, light, "/compute?ms=600"));
            assertEquals(0, server.hybrid().counters().getTimeSlicingOn());
        }
    }

    /**
     * Waits out what the warm-up may have switched on: in a fresh JVM the first requests run interpreted, some for
     * hundreds of microseconds beside brief ones, which is a loop's uneven runs, and slicing holds on for a second
     * after them.
     */
    private static void pastTheWarmUpsHold() throws InterruptedException {
        Thread.sleep(1_300);
    }

    /** The server closes them when it stops. */
    private static Socket[] connect(TestServer server) throws Exception {
        Socket[] heavy = new Socket[HEAVY];
        for (int i = 0; i < HEAVY; i++) {
            heavy[i] = server.connect();
        }
        return heavy;
    }

    private static void warmUp(Socket[] heavy, Socket light, String heavyPath) throws Exception {
        for (int i = 0; i < 3; i++) {
            for (Socket h : heavy) {
                assertEquals(200, TestServer.get(h, heavyPath).status());
            }
            assertEquals(200, TestServer.get(light, "/size?kb=0.1").status());
        }
    }

    /**
     * Sends light requests one after another on {@code light} while {@code heavyPath} runs on every heavy connection.
     *
     * @return how many ready connections the loop served on pool threads meanwhile
     */
    private static long lightRequestsBeside(LoopCounters counters, Socket[] heavy, Socket light, String heavyPath)
            throws Exception {
        List<CompletableFuture<TestServer.Response>> done = sendAll(heavy, heavyPath);
        int light200 = 0;
        while (!done.stream().allMatch(CompletableFuture::isDone)) {
            assertEquals(102, TestServer.get(light, "/size?kb=0.1").body().length);
            light200++;
        }
        for (CompletableFuture<TestServer.Response> d : done) {
            assertEquals(200, d.get().status());
        }
        assertTrue(light200 >= 10, "only " + light200 + " light requests beside " + heavyPath);
        return counters.getTimeSlicedRuns();
    }

    /** Sends {@code path} on every connection; each future completes with its response. */
    private static List<CompletableFuture<TestServer.Response>> sendAll(Socket[] connections, String path)
            throws Exception {
        List<CompletableFuture<TestServer.Response>> done = new ArrayList<>();
        for (Socket h : connections) {
            TestServer.sendGet(h, path);
            done.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return TestServer.readResponse(h.getInputStream());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        return done;
    }
}
