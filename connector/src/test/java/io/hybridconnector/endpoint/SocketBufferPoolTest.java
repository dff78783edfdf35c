package io.hybridconnector.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.tomcat.util.net.SocketBufferHandler;
import org.junit.jupiter.api.Test;

/** The pool keeps what the load uses and frees what an interval did not use, within its bound. */
class SocketBufferPoolTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private static SocketBufferHandler pair() {
        return new SocketBufferHandler(8192, 65536, true);
    }

    @Test
    void keepsAtMostItsCapacity() {
        SocketBufferPool pool = new SocketBufferPool(3, 1000);
        for (int i = 0; i < 5; i++) {
            pool.give(pair());
        }
        assertEquals(3, pool.size());
    }

    @Test
    void aSteadyLoadKeepsWhatItUsesAndAnIdleOneGetsEverythingBack() {
        SocketBufferPool pool = new SocketBufferPool(128, 1000);
        long t = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            pool.give(pair());
        }
        assertEquals(0, pool.sweepIfDue(t + 2 * SECOND), "the first sweep knows of no idle interval yet");
        // A load that needs 4 pairs at once, through a whole interval: 6 stay unused.
        for (int round = 0; round < 3; round++) {
            List<SocketBufferHandler> inUse = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inUse.add(pool.take());
            }
            inUse.forEach(pool::give);
        }
        assertEquals(0, pool.sweepIfDue(t + 2 * SECOND + SECOND / 2), "not due");
        assertEquals(6, pool.sweepIfDue(t + 3 * SECOND));
        assertEquals(4, pool.size());
        // The same load goes on: nothing more is freed.
        List<SocketBufferHandler> inUse = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            inUse.add(pool.take());
        }
        inUse.forEach(pool::give);
        assertEquals(0, pool.sweepIfDue(t + 4 * SECOND));
        // The load stops: an interval later every pair is freed.
        assertEquals(4, pool.sweepIfDue(t + 5 * SECOND));
        assertNull(pool.take());
    }

    @Test
    void capacityFollowsStockNiosSettingsWhenSet() {
        assertEquals(SocketBufferPool.DEFAULT_CAPACITY, SocketBufferPool.capacity(-2, -2, 0));
        assertEquals(500, SocketBufferPool.capacity(500, -2, 500));
        assertEquals(0, SocketBufferPool.capacity(-2, 0, 0));
        assertEquals(Integer.MAX_VALUE, SocketBufferPool.capacity(-1, -2, -1));
        assertNotNull(new SocketBufferPool(0, 1000));
    }
}
