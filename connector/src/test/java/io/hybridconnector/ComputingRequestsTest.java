package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.hybridconnector.loop.ComputeLane;

import org.junit.jupiter.api.Test;

/**
 * Requests known to compute run at most {@link ComputeLane#lanesFor three per CPU} at once, through real sockets on a
 * one-loop server: with more computing connections than lanes, the servlet never sees more of them at once than the
 * lanes (plus any that waited their maximum and ran anyway), every request is answered, and a light request on
 * another connection meanwhile stays on the loop. Stock NIO runs them all at once, in the same body, as the reference.
 */
class ComputingRequestsTest {

    private static final String STOCK = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int LANES = ComputeLane.lanesFor(Runtime.getRuntime().availableProcessors());
    private static final int HEAVY = LANES + 3;

    @Test
    void computingRequestsBeyondTheLanesWaitForOne() throws Exception {
        int stockPeak = peakComputing(STOCK, new String[0]).peak;
        Result ours = peakComputing(HYBRID, new String[] { "loops", "1" });
        System.out.printf("computing at once, %d connections, %d lanes: stock NIO %d, ours %d (%d entered, %d waited,"
                + " %d ran without a lane)%n", HEAVY, LANES, stockPeak, ours.peak, ours.entered, ours.waited,
                ours.overflowed);
        assertEquals(HEAVY, stockPeak, "stock NIO runs every computing request at once");
        assertTrue(ours.entered > 0, "no computing request asked for a lane: the class was not learnt as computing");
        assertTrue(ours.waited > 0, "no computing request waited for a lane");
        assertTrue(ours.peak <= LANES + ours.overflowed, ours.peak + " computing at once with " + LANES + " lanes");
    }

    private record Result(int peak, long entered, long waited, long overflowed) {
    }

    private static Result peakComputing(String protocol, String[] attributes) throws Exception {
        try (TestServer server = new TestServer(protocol, attributes); Socket light = server.connect()) {
            List<Socket> heavy = new ArrayList<>();
            for (int i = 0; i < HEAVY; i++) {
                heavy.add(server.connect());
            }
            // Learn the class (the detector sees it compute on the loop twice) and its CPU time (a predicted run).
            for (int round = 0; round < 3; round++) {
                computeOnAll(heavy, 60);
            }
            ComputeLane lane = protocol.equals(HYBRID) ? server.hybrid().computeLane() : null;
            if (lane != null) {
                lane.resetCounters();
            }
            TestServer.ComputeServlet.resetPeak();
            for (int round = 0; round < 3; round++) {
                computeOnAll(heavy, 60);
                assertEquals(102, TestServer.get(light, "/size?kb=0.1").body().length);
            }
            int peak = TestServer.ComputeServlet.PEAK.get();
            return lane == null ? new Result(peak, 0, 0, 0)
                    : new Result(peak, lane.getEntered(), lane.getWaited(), lane.getOverflowed());
        }
    }

    /** One request on every heavy connection at once; returns when all are answered. */
    private static void computeOnAll(List<Socket> heavy, int ms) throws Exception {
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (Socket s : heavy) {
            TestServer.sendGet(s, "/compute?ms=" + ms);
        }
        for (Socket s : heavy) {
            answers.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return TestServer.readResponse(s.getInputStream()).status();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<Integer> a : answers) {
            assertEquals(200, a.get().intValue());
        }
    }
}
