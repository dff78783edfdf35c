package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * When a loop's inline runs are uneven (brief ones beside runs under the least limit that together hold the loop for
 * the least limit in each budget), the stall detector switches time slicing on, as beside requests computing off the
 * loops; requests that all take about the same time never do, whatever that time. Real selector, pipes, stall
 * detector and {@link TimeSlicing}; no HTTP, and the fixture's connections run inline whatever slicing says, so
 * the uneven runs go on and only the decision is looked at.
 * <p>
 * Before {@link RunMix}, a loop beside such runs served them inline, round after round, and slicing never went on
 * (nothing computed off the loop): on one core beside 8 to 32 connections computing 0.5 ms, light requests got
 * 0.61x-0.82x stock's throughput.
 */
class UnevenRoundsTest {

    private static final int LIGHT = 20;
    private static final long WATCH_MILLIS = 600;

    @Test
    void briefRunsBesideManyShortOnesSwitchTimeSlicingOn() throws Exception {
        assertTrue(slicingSwitchedOn(runs(16, 600, LIGHT, 0)) >= 1,
                "time slicing never went on beside 16 connections running 0.6 ms inline");
    }

    /**
     * Rounds are timed by the wall clock, so a brief run during which the loop's thread lost its CPU for half a
     * millisecond or more (another process, a collection) counts as short, and its round, beside the 0.6 ms one, as
     * uneven: once in a fresh-clone CI run (2026-12-08). Such rounds are rare, while a wrong rule would switch slicing
     * on in every watch: the test passes once one watch of three stays inline.
     */
    @Test
    void briefRunsBesideOneShortRunNowAndThenStayInline() throws Exception {
        long switchedOn = 0;
        for (int watch = 0; watch < 3; watch++) {
            switchedOn = slicingSwitchedOn(runs(1, 600, LIGHT, 0));
            if (switchedOn == 0) {
                break;
            }
        }
        assertEquals(0, switchedOn,
                "one connection of 0.6 ms beside 20 brief ones holds the loop for less than the least limit a budget");
    }

    /** Requests that all take about the same time are not uneven, however near the lines they run. */
    @Test
    void runsThatAreAllAlikeStayInline() throws Exception {
        assertEquals(0, slicingSwitchedOn(runs(LIGHT, 0, 0, 0)), "all brief");
        assertEquals(0, slicingSwitchedOn(runs(LIGHT, 600, 0, 0)), "all 0.6 ms");
        assertEquals(0, slicingSwitchedOn(runs(LIGHT, 380, 0, 0)), "all 0.38 ms, between the lines");
    }

    /**
     * @return {@code heavy} connections running {@code heavyMicros} each and {@code light} ones running
     *         {@code lightMicros}, all in closed loops
     */
    private static List<RepeatingChannel> runs(int heavy, long heavyMicros, int light, long lightMicros)
            throws Exception {
        List<RepeatingChannel> all = new ArrayList<>();
        for (int i = 0; i < heavy; i++) {
            all.add(new RepeatingChannel("heavy-" + i, TimeUnit.MICROSECONDS.toNanos(heavyMicros), Integer.MAX_VALUE,
                    null));
        }
        for (int i = 0; i < light; i++) {
            all.add(new RepeatingChannel("light-" + i, TimeUnit.MICROSECONDS.toNanos(lightMicros), Integer.MAX_VALUE,
                    null));
        }
        return all;
    }

    /** Runs the connections for {@link #WATCH_MILLIS}; returns how many times time slicing went on meanwhile. */
    private static long slicingSwitchedOn(List<RepeatingChannel> connections) throws Exception {
        try (LoopFixture fixture = new LoopFixture(5, -1, true)) {
            for (RepeatingChannel c : connections) {
                c.loop = fixture.loop;
                LoopFixture.register(fixture.loop, c);
            }
            LoopFixture.holdTheLoopWhile(fixture.loop, () -> connections.forEach(RepeatingChannel::readyQuietly));
            Thread.sleep(WATCH_MILLIS);
            connections.forEach(c -> c.stop = true);
            long runs = connections.stream().mapToLong(c -> c.runs.get()).sum();
            assertTrue(runs >= connections.size(), "only " + runs + " runs");
            assertEquals(fixture.counters.getTimeSlicingOn(), fixture.counters.getTimeSlicingOnUnevenRounds(),
                    "every time slicing went on, it was for uneven runs");
            return fixture.counters.getTimeSlicingOn();
        }
    }
}
