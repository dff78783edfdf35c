package io.hybridconnector.loop;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many requests known to compute may run off the loops at once, so that the loops keep their share of the CPUs.
 * <p>
 * The kernel shares a CPU per thread. A loop is one thread that serves many connections; every request moved off it
 * because it computes is another thread. Beside k of those on one CPU, each of the loop's short requests waits for k
 * time slices whenever the loop is preempted (measured: 4 requests computing 20 ms, one core, light p99 10.4 ms against
 * stock NIO's 6.0, whose short requests run on many briefly woken threads). Running at most
 * {@link #lanesFor three per CPU} of them at once keeps that wait to three slices (short ones: the stall detector's
 * paced looks end each within a millisecond of its slice, {@link PreemptionPacer}) and leaves each loop a quarter of
 * its CPU at least; the computing requests lose nothing on one core (it gives the same CPU time, just to fewer
 * threads at a time) and run first come, first served instead of side by side. Why three and not two: two left the
 * computing requests two thirds of a core where stock NIO gives them about three quarters (one core beside 4
 * computing 20 ms, paced: heavy 32.0 req/s with two lanes against stock's 34.7, 35.7 with three against 35.7; light
 * p99 5.82 and 6.86 ms, stock 5.72 and 5.58; light 28,741 and 21,963 req/s, stock 17,622 and 18,348).
 * <p>
 * A request waits for a lane at most as long as it would have taken on stock NIO, sharing the CPUs with every
 * computing request there is (its class's CPU time x those requests / CPUs), then runs anyway: requests of equal size
 * never wait that long (first come, first served finishes each no later than sharing would), and a few very long
 * requests in every lane hold a short one back at most its own time on stock. Waiting parks the request's own thread,
 * which already left its loop; the fast path never comes here. Any thread.
 */
public final class ComputeLane {

    /** However long a class computes, a request waits for a lane at most this long. */
    static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Semaphore lanes;
    private final int size;
    /** The semaphore's permits: {@code size}, or all an int holds when there is no bound. */
    private final int permits;
    private final int cpus;
    private final LongAdder entered = new LongAdder();
    private final LongAdder waited = new LongAdder();
    private final LongAdder overflowed = new LongAdder();

    /**
     * @param size how many computing requests may run at once; 0 or less: no bound
     * @param cpus the CPUs this process may run on
     */
    public ComputeLane(int size, int cpus) {
        this.size = size;
        this.cpus = Math.max(1, cpus);
        this.permits = size <= 0 ? Integer.MAX_VALUE : size;
        this.lanes = new Semaphore(permits, true); // fair: first come, first served
    }

    /**
     * @return lanes for the CPUs this process may run on; the system property {@code io.hybridconnector.computeLanes}
     *         sets another count (0: no bound), for measuring the connector without them
     */
    public static ComputeLane forThisProcess() {
        int cpus = Runtime.getRuntime().availableProcessors();
        return new ComputeLane(Integer.getInteger("io.hybridconnector.computeLanes", lanesFor(cpus)), cpus);
    }

    /** @return three lanes per CPU this process may run on: the loops then get at least a quarter of each */
    public static int lanesFor(int cpus) {
        return 3 * Math.max(1, cpus);
    }

    /**
     * Takes a lane, waiting for one at most as long as the request would take on stock NIO, where it would share
     * the CPUs with every computing request now in a lane or waiting for one.
     *
     * @param cpuNanos the CPU time its class's requests take
     * @return {@code true} if a lane was taken, to give back with {@link #leave}; {@code false} if the request runs
     *         without one (it waited its maximum, or was interrupted)
     */
    public boolean enter(long cpuNanos) {
        entered.increment();
        try {
            if (lanes.tryAcquire(0, TimeUnit.NANOSECONDS)) { // honours the queue, unlike tryAcquire()
                return true;
            }
            waited.increment();
            if (lanes.tryAcquire(maxWaitNanos(cpuNanos), TimeUnit.NANOSECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        overflowed.increment();
        return false;
    }

    /** @return the request's time on stock NIO beside the computing requests there are now, at most a second */
    long maxWaitNanos(long cpuNanos) {
        long sharing = getBusy() + lanes.getQueueLength() + 1L;
        return Math.min(cpuNanos * sharing / cpus, MAX_WAIT_NANOS);
    }

    /** Gives back a lane that {@link #enter} took. */
    public void leave() {
        lanes.release();
    }

    public int size() {
        return size;
    }

    /** @return computing requests that asked for a lane */
    public long getEntered() {
        return entered.sum();
    }

    /** @return of those, the ones that found every lane taken and waited */
    public long getWaited() {
        return waited.sum();
    }

    /** @return of those, the ones that waited the maximum and ran without a lane */
    public long getOverflowed() {
        return overflowed.sum();
    }

    /** @return requests in a lane now */
    public int getBusy() {
        return permits - lanes.availablePermits();
    }

    public void resetCounters() {
        entered.reset();
        waited.reset();
        overflowed.reset();
    }
}
