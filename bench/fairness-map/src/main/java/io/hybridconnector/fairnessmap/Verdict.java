package io.hybridconnector.fairnessmap;

import java.util.ArrayList;
import java.util.List;

/**
 * Issue 38's bounds for one cell, from the medians of stock NIO and ours: light p99 at most max(1.2x stock's, stock's
 * + 2 ms), light req/s at least 0.95x stock's, heavy req/s at least 0.9x stock's. A figure that could not be measured
 * (NaN: no request completed) misses its bound. Immutable.
 *
 * @param p99BoundMillis the light p99 ours may have at most
 * @param p99Met         ours' light p99 is within it
 * @param lightMet       ours' light req/s is within its bound
 * @param heavyMet       ours' heavy req/s is within its bound
 */
record Verdict(double p99BoundMillis, boolean p99Met, boolean lightMet, boolean heavyMet) {

    static final double P99_RATIO = 1.2;
    static final double P99_SLACK_MILLIS = 2;
    static final double LIGHT_RATIO = 0.95;
    static final double HEAVY_RATIO = 0.9;

    static Verdict of(double stockP99, double oursP99, double stockLight, double oursLight, double stockHeavy,
            double oursHeavy) {
        double bound = Math.max(P99_RATIO * stockP99, stockP99 + P99_SLACK_MILLIS);
        return new Verdict(bound, oursP99 <= bound, oursLight >= LIGHT_RATIO * stockLight,
                oursHeavy >= HEAVY_RATIO * stockHeavy);
    }

    boolean met() {
        return p99Met && lightMet && heavyMet;
    }

    /** The bounds missed, by name: "light p99", "light req/s", "heavy req/s"; empty when all are met. */
    List<String> misses() {
        List<String> missed = new ArrayList<>();
        if (!p99Met) {
            missed.add("light p99");
        }
        if (!lightMet) {
            missed.add("light req/s");
        }
        if (!heavyMet) {
            missed.add("heavy req/s");
        }
        return missed;
    }
}
