package io.hybridconnector.loop;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How long ready connections waited for their loop: from the moment the loop could have seen them ready to the start
 * of their run, in microseconds, in log-linear buckets (four per power of two, so a percentile is within 25%).
 * <p>
 * One per {@link EventLoop}, written by its leader only (one writer at a time: leadership passes with a
 * happens-before), so a record is two plain stores with release semantics and no contended atomic; readers (the
 * MBean) merge the loops' snapshots and may see a record a little late.
 */
public final class LoopWaitHistogram {

    private static final int SUB_BUCKETS = 4;
    /** Up to 2^40 us (12 days): enough for any wait. */
    static final int BUCKETS = SUB_BUCKETS * 41;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private volatile long maxMicros;

    /** Leader only. */
    void record(long waitNanos) {
        long micros = Math.max(0, waitNanos / 1000);
        int i = bucketOf(micros);
        counts.lazySet(i, counts.get(i) + 1);
        if (micros > maxMicros) {
            maxMicros = micros;
        }
    }

    static int bucketOf(long micros) {
        if (micros < SUB_BUCKETS) {
            return (int) micros;
        }
        int octave = 63 - Long.numberOfLeadingZeros(micros); // >= 2
        int sub = (int) (micros >>> (octave - 2)) & (SUB_BUCKETS - 1);
        return Math.min(BUCKETS - 1, SUB_BUCKETS * (octave - 1) + sub);
    }

    /** @return the largest wait a bucket holds, in microseconds */
    static long upperBoundOf(int bucket) {
        if (bucket < SUB_BUCKETS) {
            return bucket;
        }
        int octave = bucket / SUB_BUCKETS + 1;
        int sub = bucket % SUB_BUCKETS;
        return ((long) (SUB_BUCKETS + sub + 1) << (octave - 2)) - 1;
    }

    /** The loops' waits merged: how many, and their percentiles and maximum in microseconds. */
    public record Snapshot(long count, long p50Micros, long p99Micros, long p999Micros, long maxMicros) {
    }

    /** Any thread. */
    public static Snapshot snapshot(EventLoop... loops) {
        long[] sum = new long[BUCKETS];
        long max = 0;
        for (EventLoop loop : loops) {
            max = Math.max(max, loop.waits().addTo(sum));
        }
        long count = 0;
        for (long c : sum) {
            count += c;
        }
        return new Snapshot(count, percentile(sum, max, 50), percentile(sum, max, 99), percentile(sum, max, 99.9), max);
    }

    /** Adds this loop's counts to {@code sum} (length {@link #BUCKETS}); returns this loop's largest wait in us. */
    long addTo(long[] sum) {
        for (int i = 0; i < BUCKETS; i++) {
            sum[i] += counts.get(i);
        }
        return maxMicros;
    }

    /** Any thread; a record racing with it may survive. */
    public void reset() {
        for (int i = 0; i < BUCKETS; i++) {
            counts.set(i, 0);
        }
        maxMicros = 0;
    }

    /**
     * @param counts merged counts
     * @param max    the largest wait recorded, which caps the answer
     * @return the wait in microseconds below which {@code percentile} percent of the waits were, or 0 if none
     */
    static long percentile(long[] counts, long max, double percentile) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(total * percentile / 100.0);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= Math.max(1, rank)) {
                return Math.min(upperBoundOf(i), max);
            }
        }
        return max;
    }
}
