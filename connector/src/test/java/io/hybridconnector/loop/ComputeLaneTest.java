package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The lane alone, with real threads: it bounds how many computing requests run at once, lets the rest in first come
 * first served as lanes free up, and lets a request that waited its maximum run without a lane.
 */
class ComputeLaneTest {

    @Test
    void atMostSizeRunAtOnceAndEveryoneRuns() throws Exception {
        ComputeLane lane = new ComputeLane(2, 1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger withoutLane = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                boolean in = lane.enter(TimeUnit.MILLISECONDS.toNanos(100)); // 8 x 100 ms on stock: never gives up
                if (!in) {
                    withoutLane.incrementAndGet();
                }
                int now = running.incrementAndGet();
                peak.accumulateAndGet(now, Math::max);
                LoopFixture.sleep(20);
                running.decrementAndGet();
                if (in) {
                    lane.leave();
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(10_000);
            assertFalse(t.isAlive());
        }
        assertEquals(2, peak.get(), "requests in lanes at once");
        assertEquals(0, withoutLane.get());
        assertEquals(8, lane.getEntered());
        assertTrue(lane.getWaited() >= 6, "waited: " + lane.getWaited());
        assertEquals(0, lane.getOverflowed());
        assertEquals(0, lane.getBusy());
    }

    @Test
    void aRequestThatWaitedItsMaximumRunsWithoutALane() throws Exception {
        ComputeLane lane = new ComputeLane(1, 1);
        assertTrue(lane.enter(0));
        long start = System.nanoTime();
        // 15 ms of CPU beside the one in the lane, on one CPU: 30 ms on stock NIO, the longest it waits here.
        assertFalse(lane.enter(TimeUnit.MILLISECONDS.toNanos(15)), "every lane is taken");
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMillis >= 29 && waitedMillis < 1000, "waited " + waitedMillis + " ms");
        assertEquals(1, lane.getOverflowed());
        lane.leave();
        assertTrue(lane.enter(0), "the lane given back is free again");
        lane.leave();
    }

    @Test
    void aFreedLaneGoesToAWaitingRequest() throws Exception {
        ComputeLane lane = new ComputeLane(1, 1);
        assertTrue(lane.enter(0));
        CountDownLatch got = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            if (lane.enter(TimeUnit.SECONDS.toNanos(5))) {
                got.countDown();
                lane.leave();
            }
        });
        waiter.start();
        assertFalse(got.await(50, TimeUnit.MILLISECONDS), "got a lane while it was taken");
        lane.leave();
        assertTrue(got.await(5, TimeUnit.SECONDS), "the waiting request never got the freed lane");
        waiter.join(5_000);
        assertEquals(1, lane.getWaited());
    }

    @Test
    void theLongestWaitIsTheRequestsTimeOnStockBesideEveryComputingRequest() {
        ComputeLane lane = new ComputeLane(2, 2);
        assertEquals(TimeUnit.MILLISECONDS.toNanos(10), lane.maxWaitNanos(TimeUnit.MILLISECONDS.toNanos(20)));
        assertTrue(lane.enter(0) && lane.enter(0));
        // 2 in lanes + this one, sharing 2 CPUs: 30 ms for 20 ms of CPU
        assertEquals(TimeUnit.MILLISECONDS.toNanos(30), lane.maxWaitNanos(TimeUnit.MILLISECONDS.toNanos(20)));
        assertEquals(ComputeLane.MAX_WAIT_NANOS, lane.maxWaitNanos(TimeUnit.SECONDS.toNanos(60)));
        lane.leave();
        lane.leave();
    }

    @Test
    void withoutABoundEveryoneRunsAndIsCounted() {
        ComputeLane lane = new ComputeLane(0, 1);
        assertTrue(lane.enter(0) && lane.enter(0) && lane.enter(0));
        assertEquals(3, lane.getBusy(), "requests in lanes now");
        lane.leave();
        assertEquals(2, lane.getBusy());
    }

    @Test
    void threeLanesPerCpu() {
        assertEquals(3, ComputeLane.lanesFor(1));
        assertEquals(6, ComputeLane.lanesFor(2));
        assertEquals(3, ComputeLane.lanesFor(0));
    }
}
