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
 * threads at a time) and run first come, first served instead of side by side.
 * <p>
 * Why three: the count sets how a core is split between the loop and the computing requests, where stock NIO's split
 * depends on how many of its workers the light load keeps runnable, which differs from machine to machine. With two,
 * the computing requests get at most two thirds of the core, and on two machines of three measured stock gave them
 * more. One core beside 4 requests computing 20 ms, same build with {@code io.hybridconnector.computeLanes} 2 and 3,
 * interleaved runs of 5 rounds: on an AMD EPYC guest (2026-11-26 afternoon, 4 runs each) two gave them 0.88x-0.91x
 * stock's throughput (32.5-32.7 against 36.0-37.0 req/s), three 0.96x-0.99x, the light requests 1.67x-1.71x stock's
 * throughput with two and 1.22x-1.40x with three, light p99 within stock's + 2 ms with both (three: 5.84-6.25 ms
 * against stock's 5.23-5.91); on an Intel Xeon guest (that morning) two 0.92x, three 1.00x, light p99 5.82 and 6.86
 * ms (stock 5.58-5.72). On a slower AMD guest (late that morning), where our short requests cost more CPU than
 * stock's in this mix, three put the light requests at 0.62x-0.77x stock's throughput (two: 0.94x-1.27x) and the
 * computing ones at 1.08x-1.21x (two: 1.08x-1.23x): neither count met every bound there.
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
