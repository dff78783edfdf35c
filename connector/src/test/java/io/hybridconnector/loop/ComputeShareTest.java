package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The steering of the computing requests' steps, driven directly: the stall detector's looks with a clock and run
 * counts the test chooses, computing requests reported as the adapter reports them.
 */
class ComputeShareTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Looks per period: one a millisecond, a little longer than the shortest period. */
    private static final int LOOKS = (int) (ComputeShare.MIN_PERIOD_NANOS / MS) + 50;

    /** Three lanes, as one CPU gets ({@link ComputeLane#lanesFor}). */
    private static final int LANES = ComputeLane.lanesFor(1);

    /** A clock, the loops' run count and the share on one CPU. */
    private final ComputeShare share = new ComputeShare(1, LANES);
    private long now = 1_000 * MS;
    private long runs;

    @Test
    void computingRequestsThatGetABitMoreThanStockPerRunGoOneStepLowerPerPeriod() {
        for (int period = 1; period <= ComputeShare.MAX_STEPS + 2; period++) {
            // Four computing 9 ms each while the loops serve 1,000 runs: 9 us each per run, stock gave each of four 8.
            period(4, 4, 9 * MS, 1_000);
            assertEquals(Math.min(period, ComputeShare.MAX_STEPS), share.steps(), "after period " + period);
        }
        assertEquals(ComputeShare.MAX_STEPS, share.getStepsDown());
    }

    @Test
    void farMoreThanStockTakesAsManyStepsAsTheExcessAsksAtOnce() {
        period(4, 4, 20 * MS, 1_000); // 20 us each per run, 2.5 times stock's 8
        assertEquals(ComputeShare.MAX_STEPS, share.steps());
        assertEquals(1, ComputeShare.stepsFor(1.1));
        assertEquals(2, ComputeShare.stepsFor(1.36), "two sevenths take 1.31 away, three would take 1.49");
        assertEquals(6, ComputeShare.stepsFor(2.5));
    }

    @Test
    void aLoneComputingRequestGetsLessPerRunThanEachOfFour() {
        // Stock gave one request computing 200 ms 4.8-5.4 us per run on one core, each of four 8.5-9.1 us.
        assertEquals(TimeUnit.MICROSECONDS.toNanos(5), share.targetNanos(1));
        assertEquals(TimeUnit.MICROSECONDS.toNanos(8), share.targetNanos(4));
        assertEquals(share.targetNanos(1), share.targetNanos(0.4), "fewer than one on average count as one");
        // 6.8 us per run: over a lone request's target by 1.36, two steps of a seventh; within four's band.
        period(1, 5, 68 * MS, 50_000);
        assertEquals(2, share.steps());
        ComputeShare other = new ComputeShare(1, LANES);
        period(other, 4, 4, 68 * MS / 10, 1_000);
        assertEquals(0, other.steps());
    }

    @Test
    void stepsLearntBesideRequestsThatAreGoneDoNotOutliveThem() {
        period(4, 4, 9 * MS, 1_000);
        period(4, 4, 9 * MS, 1_000);
        assertEquals(2, share.steps());
        look(ComputeShare.MIN_PERIOD_NANOS / 2, 100); // none computes: the steps stay for a while
        assertEquals(2, share.steps());
        look(ComputeShare.MIN_PERIOD_NANOS / 2, 100); // none for a whole period: the next ones start afresh
        assertEquals(0, share.steps());
        assertEquals(2, share.getStepsUp());
    }

    @Test
    void aDetectorParkedLongerThanAPeriodStartsAfresh() {
        period(4, 4, 9 * MS, 1_000);
        assertEquals(1, share.steps());
        share.started();
        look(10 * ComputeShare.MIN_PERIOD_NANOS, 1_000); // parked: what the period holds spans the quiet time
        assertEquals(0, share.steps());
        share.finished(0);
    }

    @Test
    void theyComeBackAStepOncePeriodsGiveThemUnderThreeQuartersOfStock() {
        ComputeShare fourLanes = new ComputeShare(1, 4); // none of the four waits for a lane
        period(fourLanes, 4, 4, 9 * MS, 1_000);
        period(fourLanes, 4, 4, 9 * MS, 1_000);
        assertEquals(2, fourLanes.steps());
        period(fourLanes, 4, 4, 20 * MS, 2_550); // 7.8 us: in the band of four's 8, stays
        assertEquals(2, fourLanes.steps());
        period(fourLanes, 4, 4, 20 * MS, 3_200); // 6.25 us: in the band, stays
        assertEquals(2, fourLanes.steps());
        period(fourLanes, 4, 4, 20 * MS, 3_700); // 5.4 us
        assertEquals(1, fourLanes.steps());
        period(fourLanes, 4, 4, 20 * MS, 3_700);
        period(fourLanes, 4, 4, 20 * MS, 3_700);
        assertEquals(0, fourLanes.steps(), "none waits for a lane, and over half of stock's: not above the configured");
        assertEquals(2, fourLanes.getStepsUp());
    }

    @Test
    void whileSomeWaitForALaneTheyMayGoOneStepAboveTheConfiguredPriority() {
        // Four computing 20 ms, three lanes, and each gets 5 us per run: under three quarters of stock's 8.
        period(4, 4, 20 * MS, 4_000);
        assertEquals(ComputeShare.STEP_ABOVE, share.steps());
        period(4, 4, 20 * MS, 4_000);
        assertEquals(ComputeShare.STEP_ABOVE, share.steps(), "one step above, no more");
        assertEquals(1, share.getStepsUp());
        // Down to three computing 60 ms: none waits, and they get over half of stock's per run (6.8 us of 7.5), so
        // back to the configured priority. Three finish in a second, under the four a period needs: it ends at two
        // seconds, with the three that finished over the runs of two seconds.
        period(3, 3, 60 * MS, 4_500);
        assertEquals(ComputeShare.STEP_ABOVE, share.steps());
        period(3, 3, 60 * MS, 4_500);
        assertEquals(0, share.steps());
        assertEquals(1, share.getStepsDown());
    }

    @Test
    void whenTheStepAboveIsNotEnoughAndSeveralWaitTheLoopsYield() {
        // Eight computing 20 ms beside three lanes, 2.5 us per run each: a quarter of stock's 8.9 for eight.
        period(8, 8, 20 * MS, 8_000);
        assertEquals(ComputeShare.STEP_ABOVE, share.steps());
        assertTrue(share.loopsYield(), "above the configured priority, far under stock's, five waiting");
        period(8, 8, 20 * MS, 2_500); // 8 us: within the band now
        assertFalse(share.loopsYield());
        period(8, 8, 20 * MS, 8_000);
        assertTrue(share.loopsYield());
        look(ComputeShare.MIN_PERIOD_NANOS, 100); // none computes for a period: the mix is gone
        assertFalse(share.loopsYield());
    }

    @Test
    void fourBesideThreeLanesNeverMakeTheLoopsYield() {
        for (int i = 0; i < 3; i++) {
            period(4, 4, 20 * MS, 8_000); // 2.5 us per run: far under stock's 8, but one waits at most
        }
        assertEquals(ComputeShare.STEP_ABOVE, share.steps());
        assertFalse(share.loopsYield());
    }

    @Test
    void whenComputingStopsTheStepAboveEndsWithIt() {
        period(4, 4, 20 * MS, 4_000);
        assertEquals(ComputeShare.STEP_ABOVE, share.steps());
        look(MS, 10); // no computing request now, none finished: the next one starts at the configured priority
        assertEquals(0, share.steps());
    }

    @Test
    void underHalfOfStocksCpuPerRunTheyMayGoOneStepAboveWithoutWaitingForLanes() {
        ComputeShare unbounded = new ComputeShare(1, 0);
        for (int i = 0; i < 3; i++) {
            period(unbounded, 8, 8, 20 * MS, 8_000); // 2.5 us per run each
        }
        assertEquals(ComputeShare.STEP_ABOVE, unbounded.steps());
        period(unbounded, 8, 8, 20 * MS, 3_300); // 6.1 us: over half of eight's 8.9, so back to the configured
        assertEquals(0, unbounded.steps());
    }

    @Test
    void requestsWaitingForALaneCountAsStockWouldRunThem() {
        // Three run and report 20 ms each; a fourth waits all along. Per run: 60 ms / 2,000 runs / 4 = 7.5 us, not
        // above stock's 8 for four: no step. Counted as three it would be 10 us, over three's 7.5.
        share.started();
        period(3, 3, 20 * MS, 2_000);
        assertEquals(0, share.steps());
        share.finished(0);
    }

    @Test
    void aPeriodNeedsASecondAndFourFinishedRequestsOrTwoSeconds() {
        share.look(now, runs);
        for (int i = 0; i < 3; i++) {
            share.started();
            share.finished(200 * MS);
        }
        share.started(); // one computes on, so that the quiet of a period does not start afresh
        looksEveryMs(share, (int) (ComputeShare.MAX_PERIOD_NANOS / MS) - 1, 50);
        assertEquals(0, share.steps(), "three requests in under two seconds: the period goes on");
        look(MS, 10_000);
        assertEquals(1, share.steps(), "two seconds: 600 ms over 109,950 runs, 5.5 us, over a lone one's 5");
        for (int i = 0; i < 4; i++) {
            share.started();
            share.finished(20 * MS);
        }
        looksEveryMs(share, (int) (ComputeShare.MIN_PERIOD_NANOS / MS) - 1, 14);
        assertEquals(1, share.steps(), "four requests, but not yet the shortest period");
        look(MS, 500);
        assertEquals(2, share.steps(), "80 ms over 14,486 runs");
        share.finished(0);
    }

    @Test
    void withNothingComputedThereIsNothingToSteer() {
        for (int i = 0; i < 100; i++) {
            look(50 * MS, 0); // no short requests either: the ratio would be infinite
        }
        assertEquals(0, share.steps());
        assertEquals(0, share.getStepsDown());
    }

    @Test
    void theTargetIsPerCpu() {
        // 9 us per run each: over one CPU's 8 for four, under two CPUs' 16.7 (four and the second CPU: 20 x 5 / 6).
        period(share, 4, 4, 9 * MS, 1_000);
        assertEquals(1, share.steps());
        ComputeShare twoCpus = new ComputeShare(2, ComputeLane.lanesFor(2));
        assertEquals(16_666, twoCpus.targetNanos(4));
        period(twoCpus, 4, 4, 9 * MS, 1_000);
        assertEquals(0, twoCpus.steps());
    }

    /**
     * One period of the detector's looks (every millisecond for {@link #LOOKS} ms) with {@code running} computing
     * requests, of which {@code finishing} then report {@code cpuEach}, while the loops begin {@code periodRuns} runs.
     */
    private void period(int running, int finishing, long cpuEach, long periodRuns) {
        period(share, running, finishing, cpuEach, periodRuns);
    }

    private void period(ComputeShare s, int running, int finishing, long cpuEach, long periodRuns) {
        for (int i = 0; i < running; i++) {
            s.started();
        }
        look(s, 0, 0);
        looksEveryMs(s, LOOKS - 1, periodRuns / LOOKS);
        for (int i = 0; i < finishing; i++) {
            s.finished(cpuEach);
        }
        for (int i = finishing; i < running; i++) {
            s.finished(0);
        }
        look(s, MS, periodRuns - periodRuns / LOOKS * (LOOKS - 1));
    }

    /** {@code count} looks a millisecond apart, the loops beginning {@code runsEach} runs before each. */
    private void looksEveryMs(ComputeShare s, int count, long runsEach) {
        for (int i = 0; i < count; i++) {
            look(s, MS, runsEach);
        }
    }

    private void look(long after, long moreRuns) {
        look(share, after, moreRuns);
    }

    private void look(ComputeShare s, long after, long moreRuns) {
        now += after;
        runs += moreRuns;
        s.look(now, runs);
    }
}
