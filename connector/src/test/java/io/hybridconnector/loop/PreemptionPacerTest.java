package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.loop.LoopFixture.Connection;

import org.junit.jupiter.api.Test;

/**
 * The stall detector looks every millisecond exactly while more requests compute off the loops than there are CPUs
 * ({@link PreemptionPacer}; the fixture's pacer counts as a one-CPU server with two such requests would): a run that
 * computed past the budget and lost its loop paces the looks until it ends; one that sleeps never does. The loops
 * yield once a round exactly while a request that waits (not one that computes) runs off them.
 */
class PreemptionPacerTest {

    private static final long BUDGET_MILLIS = 5;
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aRequestComputingOffTheLoopPacesTheLooksUntilItEnds() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            PreemptionPacer pacer = new PreemptionPacer(f.pool, new LoopCounters(), ONE_MS, 0, true);
            PreemptionPacer onePerCpu = new PreemptionPacer(f.pool, new LoopCounters(), ONE_MS, 1, true);
            long[] pacedWhileComputing = new long[2];
            Connection heavy = f.connect("heavy", () -> {
                LoopFixture.spin(150);
                pacedWhileComputing[0] = pacer.nextLookNanos(); // the loop moved away by now
                pacedWhileComputing[1] = onePerCpu.nextLookNanos();
                LoopFixture.spin(150);
            });
            Connection light = f.connect("light", () -> { });
            heavy.ready();
            assertTrue(heavy.ran.await(5, TimeUnit.SECONDS), "the heavy run did not start");
            light.ready(); // someone waits: the computing run gives the loop up at the budget
            assertTrue(heavy.done.await(5, TimeUnit.SECONDS), "the heavy run did not end");
            assertEquals(1, f.counters.getHandOffs(), "the computing run should have lost its loop");
            assertEquals(ONE_MS, pacedWhileComputing[0], "look period while it computed");
            assertEquals(-1, pacedWhileComputing[1], "paced with one computing thread on a one-CPU server");
            // 300 ms of computing, about 295 of them off the loop: a look per millisecond, at least a few dozen on a
            // loaded build machine (at the budget's period there would be at most 60).
            long paced = f.counters.getPacedLooks();
            System.out.println("PacedLooks while one request computed 300 ms (about 295 of them off its loop): " + paced);
            assertTrue(paced >= 80, "paced looks while a request computed off the loop: " + paced);
            Thread.sleep(50); // its thread has parked
            assertEquals(-1, pacer.nextLookNanos(), "the detector still paced after the request ended");
        }
    }

    @Test
    void aSleepingRequestOffTheLoopDoesNotPace() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            Connection heavy = f.connect("heavy", () -> LoopFixture.sleep(300));
            Connection light = f.connect("light", () -> { });
            heavy.ready();
            assertTrue(heavy.ran.await(5, TimeUnit.SECONDS), "the heavy run did not start");
            light.ready();
            assertTrue(heavy.done.await(5, TimeUnit.SECONDS), "the heavy run did not end");
            assertEquals(1, f.counters.getHandOffs(), "the sleeping run should have lost its loop");
            assertEquals(0, f.counters.getPacedLooks(), "a sleeping request paced the detector");
        }
    }

    @Test
    void theLoopYieldsEachRoundWhileARequestSleepsOffItAndNotAfter() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            CountDownLatch asleep = new CountDownLatch(1);
            Connection heavy = f.connect("heavy", () -> {
                asleep.countDown();
                LoopFixture.sleep(400);
            });
            heavy.ready();
            assertTrue(asleep.await(5, TimeUnit.SECONDS), "the sleeping run did not start");
            // Light connections keep the loop going round while the sleeper is moved off it (a sleep is seen at once).
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            int light = 0;
            while (System.nanoTime() < until) {
                Connection c = f.connect("light-" + light++, () -> { });
                c.ready();
                assertTrue(c.done.await(5, TimeUnit.SECONDS), "a light run did not end");
                c.closeOnStop(); // thousands of rounds on a fast machine: two descriptors each, under 1,024 at a time
            }
            long whileAsleep = f.counters.getLoopYields();
            assertTrue(heavy.done.await(5, TimeUnit.SECONDS), "the sleeping run did not end");
            assertEquals(1, f.counters.getHandOffs(), "the sleeping run should have lost its loop");
            System.out.println("LoopYields in 300 ms beside a request sleeping off its loop: " + whileAsleep + " ("
                    + light + " light runs)");
            assertTrue(whileAsleep >= light / 2, "loop yields while a request slept off the loop: " + whileAsleep
                    + " in " + light + " rounds");
            Thread.sleep(50); // its thread has parked; the detector looked again
            long after = f.counters.getLoopYields();
            for (int i = 0; i < 20; i++) {
                Connection c = f.connect("after-" + i, () -> { });
                c.ready();
                assertTrue(c.done.await(5, TimeUnit.SECONDS));
            }
            assertEquals(after, f.counters.getLoopYields(), "the loop yielded after the request ended");
        }
    }

    @Test
    void theLoopDoesNotYieldWhileARequestComputesOffIt() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            PreemptionPacer pacer = new PreemptionPacer(f.pool, new LoopCounters(), ONE_MS, 0, true);
            PreemptionPacer off = new PreemptionPacer(f.pool, new LoopCounters(), ONE_MS, 0, false);
            boolean[] yields = new boolean[3];
            Connection heavy = f.connect("heavy", () -> {
                LoopFixture.spin(150); // the loop moved away by now
                pacer.nextLookNanos();
                yields[0] = pacer.loopsYield();
                LoopFixture.sleep(1);
                LoopFixture.spin(20);
                pacer.nextLookNanos();
                yields[1] = pacer.loopsYield();
            });
            Connection sleeper = f.connect("sleeper", () -> {
                LoopFixture.sleep(100);
                off.nextLookNanos();
                yields[2] = off.loopsYield();
            });
            heavy.ready();
            assertTrue(heavy.ran.await(5, TimeUnit.SECONDS), "the heavy run did not start");
            sleeper.ready(); // someone waits: the computing run gives the loop up at the budget
            assertTrue(heavy.done.await(5, TimeUnit.SECONDS), "the heavy run did not end");
            assertTrue(sleeper.done.await(5, TimeUnit.SECONDS), "the sleeping run did not end");
            assertFalse(yields[0], "the loop would yield while a request computed off it");
            assertFalse(yields[1], "the loop would yield while a request computed off it beside a sleeping one");
            assertFalse(yields[2], "yielding was turned off");
        }
    }

    @Test
    void theLoopStopsYieldingWhenARequestThatWaitedRunsOnTheCpu() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            boolean[] yields = new boolean[2];
            Connection heavy = f.connect("heavy", () -> {
                LoopFixture.sleep(100); // a query: the loop moves away at the detector's first look
                LoopFixture.sleep(3 * BUDGET_MILLIS); // the detector looks meanwhile, every budget
                yields[0] = f.pacer.loopsYield();
                LoopFixture.spin(4 * BUDGET_MILLIS); // its result rendered
                yields[1] = f.pacer.loopsYield();
            });
            heavy.ready();
            assertTrue(heavy.done.await(5, TimeUnit.SECONDS), "the heavy run did not end");
            assertEquals(1, f.counters.getStallHandOffs(), "the waiting run should have lost its loop as blocked");
            assertTrue(yields[0], "the loop did not yield while the request waited off it");
            assertFalse(yields[1], "the loop would yield while the request that waited ran on the CPU");
        }
    }

    @Test
    void pacingOffNeverPaces() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            PreemptionPacer off = new PreemptionPacer(f.pool, f.counters, 0, 0, true);
            long[] paced = new long[1];
            Connection heavy = f.connect("heavy", () -> {
                LoopFixture.spin(100);
                paced[0] = off.nextLookNanos();
            });
            Connection light = f.connect("light", () -> { });
            heavy.ready();
            assertTrue(heavy.ran.await(5, TimeUnit.SECONDS));
            light.ready();
            assertTrue(heavy.done.await(5, TimeUnit.SECONDS));
            assertEquals(-1, paced[0]);
        }
    }
}
