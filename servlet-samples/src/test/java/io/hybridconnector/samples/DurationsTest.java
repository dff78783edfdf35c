package io.hybridconnector.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The durations the computing, spinning and blocking samples take: parsed to the microsecond, run to the clock. */
class DurationsTest {

    @Test
    void millisecondsParseWithUpToThreeDecimals() {
        assertEquals(20_000_000, Responses.parseMillisAsNanos("20", "ms", 600_000));
        assertEquals(500_000, Responses.parseMillisAsNanos("0.5", "ms", 600_000));
        assertEquals(2_250_000, Responses.parseMillisAsNanos("2.25", "ms", 600_000));
        assertEquals(1_000, Responses.parseMillisAsNanos("0.001", "ms", 600_000));
        assertEquals(0, Responses.parseMillisAsNanos("0", "ms", 600_000));
    }

    @Test
    void millisecondsOutOfRangeOrTooFineAreRefused() {
        for (String bad : new String[] { "-1", "0.0001", "600001", "x", "", "1e3" }) {
            assertThrows(IllegalArgumentException.class, () -> Responses.parseMillisAsNanos(bad, "ms", 600_000), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> Responses.parseMillisAsNanos(null, "ms", 600_000));
    }

    @Test
    void computingRunsUntilTheClockHasAdvanced() {
        AtomicLong ticks = new AtomicLong();
        ComputeServlet.computeFor(5, ticks::getAndIncrement);
        assertTrue(ticks.get() >= 6, "the clock read until 5 ticks had passed: " + ticks.get());
    }
}
