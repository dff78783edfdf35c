package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;

import io.hybridconnector.jmx.ConnectorStats;
import io.hybridconnector.loop.LoopCounters;

import org.junit.jupiter.api.Test;

/**
 * A request class that blocks is learnt: its later requests give their loop away before they run (one hand-off
 * each), instead of holding the loop until the stall detector notices. Classes that never blocked keep the fast path.
 */
class BlockPredictionTest {

    @Test
    void blockingClassHandsItsLoopOffInAdvance() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName()); Socket s = server.connect()) {
            TestServer.get(s, "/size?kb=0.1");
            server.hybrid().resetCounters();
            for (int i = 0; i < 40; i++) {
                assertEquals("slept 20", TestServer.get(s, "/block?ms=20").text());
            }
            LoopCounters c = server.hybrid().counters();
            ConnectorStats stats = server.hybrid().stats();
            assertEquals(1, stats.getClassifierBlockingClasses(), "only GET /block should be blocking");
            // The first two requests (and one probe in 16) waited for the detector; the others moved the loop at once.
            assertTrue(c.getPredictedHandOffs() >= 30, "predicted hand-offs: " + c.getPredictedHandOffs() +
                    ", stall: " + c.getStallHandOffs() + ", io: " + c.getIoHandOffs());
            assertTrue(c.getStallHandOffs() <= 6, "stall hand-offs: " + c.getStallHandOffs());

            server.hybrid().resetCounters();
            for (int i = 0; i < 50; i++) {
                assertEquals(102, TestServer.get(s, "/size?kb=0.1").body().length);
            }
            assertEquals(0, c.getHandOffs(), "a class that never blocked lost its fast path: predicted " +
                    c.getPredictedHandOffs() + ", stall " + c.getStallHandOffs() + ", io " + c.getIoHandOffs() +
                    ", blocking classes " + stats.getClassifierBlockingClasses());
        }
    }
}
