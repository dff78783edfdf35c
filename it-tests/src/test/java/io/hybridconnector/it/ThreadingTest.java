package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.hybridconnector.HybridHttp11Protocol;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Where requests run, with the samples WAR deployed unchanged: inside the selecting loop on ours (and not on stock
 * NIO), no head-of-line blocking behind a sleeping request on either, and a graceful stop that drains.
 */
class ThreadingTest {

    @Test
    void oursRunsTheServletInsideTheSelectingLoopWithNoHandOff() throws Exception {
        try (SamplesServer server = new SamplesServer(ConnectorUnderTest.HYBRID); Socket s = server.connect()) {
            HybridHttp11Protocol protocol = (HybridHttp11Protocol) server.connector.getProtocolHandler();
            for (int i = 0; i < 200; i++) { // class loading, servlet init, JIT
                RawHttp.exchange(s, RawHttp.get("/samples/thread"));
            }
            // A request the machine stalls for two detector ticks (other JVMs run beside this one in CI) is moved,
            // as it should be; the fast path must show a batch without any hand-off.
            long handOffs = -1;
            for (int batch = 0; batch < 3 && handOffs != 0; batch++) {
                protocol.resetCounters();
                for (int i = 0; i < 20; i++) {
                    String text = RawHttp.exchange(s, RawHttp.get("/samples/thread")).text();
                    assertTrue(text.contains(ConnectorUnderTest.HYBRID.selectorLoopFrame), text);
                }
                handOffs = protocol.getHandOffs();
            }
            assertEquals(0, handOffs, "hand-offs on the fast path, in each of 3 batches of 20 requests");
        }
    }

    /** The same property fails on stock NIO: its servlets run on an executor thread, away from the Poller. */
    @Test
    void stockNioRunsTheServletAwayFromItsPoller() throws Exception {
        try (SamplesServer server = new SamplesServer(ConnectorUnderTest.STOCK_NIO); Socket s = server.connect()) {
            String text = RawHttp.exchange(s, RawHttp.get("/samples/thread")).text();
            assertFalse(text.contains(ConnectorUnderTest.STOCK_NIO.selectorLoopFrame), text);
            assertTrue(text.contains("-exec-"), text);
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void sleepingRequestDoesNotDelayOtherConnections(ConnectorUnderTest which) throws Exception {
        try (SamplesServer server = new SamplesServer(which); Socket sleeper = server.connect()) {
            List<Socket> others = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                others.add(server.connect());
            }
            for (Socket s : others) { // warm every connection and the path
                RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1"));
            }
            RawHttp.send(sleeper, RawHttp.get("/samples/block?ms=2000"));
            Thread.sleep(50);
            long start = System.nanoTime();
            for (Socket s : others) {
                RawHttp.send(s, RawHttp.get("/samples/size?kb=0.1"));
            }
            for (Socket s : others) {
                assertEquals(200, RawHttp.read(s.getInputStream(), true).status());
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 200, which + ": 100 requests took " + millis + " ms beside a sleeping one");
            assertEquals("slept 2000", RawHttp.read(sleeper.getInputStream(), true).text());
            for (Socket s : others) {
                s.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void gracefulStopFinishesInFlightRequestsAndClosesIdleConnections(ConnectorUnderTest which) throws Exception {
        SamplesServer server = new SamplesServer(which);
        try (Socket busy = server.connect(); Socket idle = server.connect()) {
            RawHttp.exchange(idle, RawHttp.get("/samples/size?kb=0.1"));
            RawHttp.send(busy, RawHttp.get("/samples/block?ms=1000"));
            Thread.sleep(100);
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> {
                try {
                    server.close();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            InputStream in = busy.getInputStream();
            RawHttp.Response r = RawHttp.read(in, true);
            assertEquals(200, r.status());
            assertEquals("slept 1000", r.text());
            assertTrue(RawHttp.closedByPeer(idle), which + ": idle keep-alive connection was not closed");
            stop.get();
        }
    }
}
