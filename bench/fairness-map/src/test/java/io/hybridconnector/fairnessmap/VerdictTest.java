package io.hybridconnector.fairnessmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Issue 38's bounds. */
class VerdictTest {

    @Test
    void theLatencyBoundIsTheLargerOfTwentyPercentAndTwoMilliseconds() {
        assertEquals(7.0, Verdict.of(5, 0, 1, 1, 1, 1).p99BoundMillis(), 1e-9); // 5 + 2 > 5 x 1.2
        assertEquals(24.0, Verdict.of(20, 0, 1, 1, 1, 1).p99BoundMillis(), 1e-9); // 20 x 1.2 > 20 + 2
        assertEquals(12.0, Verdict.of(10, 0, 1, 1, 1, 1).p99BoundMillis(), 1e-9); // both
        assertTrue(Verdict.of(5, 7, 1, 1, 1, 1).p99Met(), "at the bound is within it");
        assertFalse(Verdict.of(5, 7.01, 1, 1, 1, 1).p99Met());
    }

    @Test
    void throughputBoundsAreFixedRatiosOfStocks() {
        assertTrue(Verdict.of(5, 5, 1000, 950, 100, 90).met(), "exactly at both bounds");
        Verdict v = Verdict.of(5, 5, 1000, 949, 100, 89.9);
        assertFalse(v.lightMet());
        assertFalse(v.heavyMet());
        assertTrue(v.p99Met());
        assertEquals(List.of("light req/s", "heavy req/s"), v.misses());
    }

    @Test
    void everyMissIsNamedAndAFigureNotMeasuredMisses() {
        assertEquals(List.of("light p99", "light req/s", "heavy req/s"),
                Verdict.of(5, 8, 1000, 900, 100, 80).misses());
        assertEquals(List.of(), Verdict.of(5, 1, 1000, 2000, 100, 200).misses());
        assertEquals(List.of("light p99", "heavy req/s"),
                Verdict.of(5, Double.NaN, 1000, 1000, 100, Double.NaN).misses());
    }
}
