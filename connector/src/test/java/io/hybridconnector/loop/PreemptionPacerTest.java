package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import io.hybridconnector.loop.LoopFixture.Connection;

import org.junit.jupiter.api.Test;

/**
 * The stall detector looks every millisecond exactly while more requests compute off the loops than there are CPUs
 * ({@link PreemptionPacer}; the fixture's pacer counts as a one-CPU server with two such requests would): a run that
 * computed past the budget and lost its loop paces the looks until it ends; one that sleeps never does.
 */
class PreemptionPacerTest {

    private static final long BUDGET_MILLIS = 5;
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aRequestComputingOffTheLoopPacesTheLooksUntilItEnds() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            PreemptionPacer pacer = new PreemptionPacer(f.pool, new LoopCounters(), ONE_MS, 0);
            PreemptionPacer onePerCpu = new PreemptionPacer(f.pool, new LoopCounters(), ONE_MS, 1);
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
    void pacingOffNeverPaces() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            PreemptionPacer off = new PreemptionPacer(f.pool, f.counters, 0, 0);
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
