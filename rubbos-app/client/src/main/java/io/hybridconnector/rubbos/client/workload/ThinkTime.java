package io.hybridconnector.rubbos.client.workload;

import java.util.Random;

/**
 * TPC-W think time: negative exponential with the given mean, capped at ten times the mean. (The original client
 * returned 0 instead of the cap for the rare draws beyond it; this one caps.) A mean of 0 means no think time at
 * all: the emulated users then run flat out, which turns the closed loop into a saturation test. Any thread.
 */
public final class ThinkTime {

    private final long meanMillis;

    public ThinkTime(long meanMillis) {
        if (meanMillis < 0) {
            throw new IllegalArgumentException("think time mean must be >= 0 ms, got " + meanMillis);
        }
        this.meanMillis = meanMillis;
    }

    public long meanMillis() {
        return meanMillis;
    }

    /** @return one think time in milliseconds */
    public long draw(Random random) {
        if (meanMillis == 0) {
            return 0;
        }
        double t = -meanMillis * Math.log(1 - random.nextDouble());
        return (long) Math.min(t, 10.0 * meanMillis);
    }
}
