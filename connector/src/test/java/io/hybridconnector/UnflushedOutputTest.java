package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bytes the application wrote and did not flush leave no later than stock NIO sends them whenever the application
 * pauses (issue 15, item 2), and back-to-back responses keep their write counts: 0.1 and 10 KB in one write, 100 KB
 * in at most two.
 */
class UnflushedOutputTest {

    static final String STOCK = "org.apache.coyote.http11.Http11NioProtocol";
    static final String HYBRID = HybridHttp11Protocol.class.getName();
    /** A tolerant bound for a shared CI machine; the design's target is stock + 5 ms (the figures are printed). */
    static final double SLACK_MILLIS = 50;
    static final String PAGE = "/trickle?kb=8&ms=100&n=10";

    /** Median first-byte time of {@code rounds} trickling pages (after one warm-up page), ms after the request. */
    static double medianFirstByte(String protocol, int rounds, String... attributes) throws Exception {
        try (TestServer server = new TestServer(protocol, attributes)) {
            TrickleClient.fetch(server.port, "/trickle?kb=8&ms=20&n=10", 8, 10, "");
            double[] first = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                TrickleClient.Timing t = TrickleClient.fetch(server.port, PAGE, 8, 10, "");
                first[i] = t.firstByteMillis();
            }
            System.out.println("first byte " + (protocol.equals(HYBRID) ? "ours" : "stock") + " " +
                    String.join(" ", attributes) + ": " + Arrays.toString(first) + " ms");
            Arrays.sort(first);
            return first[rounds / 2];
        }
    }

    /**
     * The write counter once the last response's write has been counted: the client may read a response before the
     * server's {@code write()} has returned and been counted.
     */
    static long settledWriteCalls(TestServer server) throws InterruptedException {
        long n = server.hybrid().writeCounters().getWriteCalls();
        while (true) {
            Thread.sleep(20);
            long again = server.hybrid().writeCounters().getWriteCalls();
            if (again == n) {
                return n;
            }
            n = again;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "hybrid", "reactor", "sync" })
    void unflushedPiecesLeaveAsSoonAsOnStock(String threadModel) throws Exception {
        int rounds = Integer.getInteger("trickle.rounds", 3);
        double stock = medianFirstByte(STOCK, rounds);
        double ours = medianFirstByte(HYBRID, rounds, "threadModel", threadModel);
        assertTrue(stock < 300, "stock NIO itself held the first piece: " + stock + " ms");
        assertTrue(ours <= stock + SLACK_MILLIS, "first byte after " + ours + " ms on ours, " + stock + " ms on stock");
    }

    /** The first trickling page of a class, before anything was learnt, counts too. */
    @Test
    void theFirstPageOfAClassIsNotLate() throws Exception {
        double stock;
        try (TestServer server = new TestServer(STOCK)) {
            stock = TrickleClient.fetch(server.port, PAGE, 8, 10, "").firstByteMillis();
        }
        try (TestServer server = new TestServer(HYBRID)) {
            double ours = TrickleClient.fetch(server.port, PAGE, 8, 10, "").firstByteMillis();
            System.out.println("first page, cold: stock " + stock + " ms, ours " + ours + " ms");
            assertTrue(ours <= stock + SLACK_MILLIS,
                    "first byte after " + ours + " ms on ours, " + stock + " on stock");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "hybrid", "reactor", "sync" })
    void backToBackResponsesKeepTheirWriteCounts(String threadModel) throws Exception {
        try (TestServer server = new TestServer(HYBRID, "threadModel", threadModel); Socket s = server.connect()) {
            int n = 50;
            double[] perResponse = new double[3];
            String[] kbs = { "0.1", "10", "100" };
            for (int k = 0; k < kbs.length; k++) {
                for (int i = 0; i < 200; i++) { // JIT
                    TestServer.get(s, "/size?kb=" + kbs[k]);
                }
                long before = settledWriteCalls(server);
                for (int i = 0; i < n; i++) {
                    TestServer.get(s, "/size?kb=" + kbs[k]);
                }
                perResponse[k] = (settledWriteCalls(server) - before) / (double) n;
            }
            System.out.println("writes per response at 0.1 / 10 / 100 KB, " + threadModel + ": " +
                    Arrays.toString(perResponse));
            assertEquals(1.0, perResponse[0], "0.1 KB");
            // A thread preempted for over a millisecond between Catalina's 8 KB slice and the last 2 KB may see its
            // bytes written by the stall detector: allow one such response in n on a shared machine.
            assertTrue(perResponse[1] <= 1.0 + 1.0 / n, "10 KB: " + perResponse[1]);
            assertTrue(perResponse[2] <= 2.0, "100 KB: " + perResponse[2]);
            assertTrue(server.hybrid().writeCounters().getPausedFlushes() <= 1, "the detector wrote for requests " +
                    "that never paused: " + server.hybrid().writeCounters().getPausedFlushes());
        }
    }

    /**
     * Pauses of about the hold time (1 ms sleeps) make the owner's take-back and the detector's write race, on many
     * connections at once, with pieces smaller and larger than stock's 8 KB: every byte arrives, in order, and the
     * detector did write for some of them (so the race was run).
     */
    @ParameterizedTest
    @ValueSource(strings = { "hybrid", "reactor" })
    void racingPausesKeepEveryByteInOrder(String threadModel) throws Exception {
        try (TestServer server = new TestServer(HYBRID, "threadModel", threadModel)) {
            ExecutorService clients = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> done = new ArrayList<>();
                int[] kbs = { 3, 8, 9, 13, 20 };
                for (int c = 0; c < 8; c++) {
                    int client = c;
                    done.add(clients.submit(() -> {
                        for (int i = 0; i < 12; i++) {
                            int kb = kbs[(client + i) % kbs.length];
                            int ms = (client + i) % 3;
                            TrickleClient.fetch(server.port, "/trickle?kb=" + kb + "&ms=" + ms + "&n=12", kb, 12, "");
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                clients.shutdownNow();
            }
            long paused = server.hybrid().writeCounters().getPausedFlushes();
            System.out.println("racing pauses, " + threadModel + ": the detector wrote " + paused + " times");
            assertTrue(paused > 0, "the detector never wrote: the race was not run");
        }
    }

    /**
     * The detector writes for the first trickling page of a class; the class's next pages leave every 8 KB from their
     * first byte (no detector write at all, so no lateness), and other classes keep gathering.
     */
    @Test
    void aClassThatPausedLeavesEveryEightKilobytesFromTheStart() throws Exception {
        try (TestServer server = new TestServer(HYBRID); Socket s = server.connect()) {
            TrickleClient.fetch(server.port, "/trickle?kb=8&ms=20&n=5", 8, 5, "");
            server.hybrid().resetCounters();
            double[] first = new double[3];
            for (int i = 0; i < first.length; i++) {
                first[i] = TrickleClient.fetch(server.port, "/trickle?kb=8&ms=20&n=5", 8, 5, "").firstByteMillis();
            }
            System.out.println("first byte of a learnt class (pieces every 20 ms): " + Arrays.toString(first) + " ms");
            assertEquals(0, server.hybrid().writeCounters().getPausedFlushes(),
                    "the detector still wrote for the class");
            for (int i = 0; i < 200; i++) {
                TestServer.get(s, "/size?kb=10");
            }
            long before = settledWriteCalls(server);
            for (int i = 0; i < 50; i++) {
                TestServer.get(s, "/size?kb=10");
            }
            long writes = settledWriteCalls(server) - before;
            assertTrue(writes <= 51, "10 KB responses of another class took " + writes + " writes for 50");
        }
    }
}
