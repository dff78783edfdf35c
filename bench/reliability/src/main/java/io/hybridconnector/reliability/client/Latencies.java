package io.hybridconnector.reliability.client;

import java.util.Arrays;

/** Latencies of a handful of requests (hundreds, not millions), with percentiles. Used by one thread. */
public final class Latencies {

    private long[] nanos = new long[64];
    private int n;
    private int failures;

    public void add(long latencyNanos) {
        if (n == nanos.length) {
            nanos = Arrays.copyOf(nanos, n * 2);
        }
        nanos[n++] = latencyNanos;
    }

    public void fail() {
        failures++;
    }

    public int count() {
        return n;
    }

    public int failures() {
        return failures;
    }

    /** The percentile in milliseconds (nearest rank), NaN when nothing was recorded. */
    public double millis(double percentile) {
        if (n == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(nanos, n);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100.0 * n);
        return sorted[Math.max(0, Math.min(n - 1, rank - 1))] / 1e6;
    }
}
