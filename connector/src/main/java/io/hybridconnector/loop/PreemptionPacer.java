package io.hybridconnector.loop;

import java.util.concurrent.TimeUnit;

import io.hybridconnector.classify.ThreadTimes;

/**
 * How often the stall detector looks while more requests compute off the loops than there are CPUs: every
 * {@link #DEFAULT_PACED_LOOK_NANOS millisecond} instead of every budget, so that a loop that lost its CPU to a computing
 * request gets it back after the kernel's time slice rather than at the next timer tick.
 * <p>
 * Why: a loop that serves many connections back to back never sleeps, so to the kernel's scheduler it is one more
 * CPU-bound thread beside the computing requests. The scheduler takes the CPU from a thread that used up its slice
 * only at a scheduling point: a timer tick (every 4 ms at {@code CONFIG_HZ=250}, this machine's kernel) or a wake-up on
 * that CPU. Nothing else wakes while the loop serves inline, so each computing thread that preempts the loop keeps the
 * CPU for a whole tick, and the loop's connections wait one tick per computing thread: measured on one core beside
 * 4 requests computing 20 ms (two in compute lanes), light p99 8.72 ms against stock NIO's 5.69. Stock NIO does not
 * have this problem because it wakes a worker for every request, and each wake-up is a scheduling point. A process
 * that only woke every millisecond on the server's CPU (outside the JVM, same run) brought ours to 5.89 ms. The
 * detector's own wake-up is such a point, on whichever CPU it wakes; it looks every millisecond for exactly as long as
 * more requests compute off the loops than there are CPUs, so this costs about a thousand short wake-ups a second then
 * (a few microseconds of CPU each), nothing otherwise, and nothing at all on the fast path.
 * <p>
 * Why not with fewer: beside one computing thread per CPU a preempted loop waits one tick, which is within the bound
 * (measured on one core beside one request computing 200 ms: light p99 3.76 ms unpaced, stock 2.54), and pacing there
 * only cuts the loop's and the request's turns shorter, which costs the light requests throughput (46,793 req/s
 * unpaced, 42,441 paced, stock 44,952-45,939, same runs).
 * <p>
 * A thread computes off the loops ({@link LoopThread#computesOffLoop}) while it runs the rest of a request whose loop
 * moved away because it computed past the budget (or waited for a CPU), or a request whose class computes (one that
 * asks for a {@link ComputeLane}). Requests that run on an operator's executor ({@code executor},
 * {@code useVirtualThreads}) are not on the pool's threads and are not counted.
 * <p>
 * <b>Loops yield while requests wait beside them.</b> The same looks tell the loops to give up their CPU once a round
 * ({@link #loopsYield}, {@code Thread.yield()} before the loop selects) while threads work off the loops on requests
 * that wait (a sleep, a lock, JDBC, a slow client) and none computes. Why: a request that slept must get a CPU to
 * finish when it wakes, and a loop serving many connections back to back never sleeps; the kernel lets a running
 * thread finish its slice before a woken one of equal weight, so each waiting request's wake-up waited for the rest
 * of the loop's slice, twice per request (woken from its sleep, and as its next request's fresh thread). Measured on
 * one core beside 4 connections sleeping 20 ms (50 light connections, 5 rounds): their throughput 171 req/s against
 * stock NIO's 187 (0.91x) without, 184 against 184 with, the light requests 1.44x and 1.45x stock's throughput. Not
 * while any request computes: a yield then gives the computing thread its turn, which the loop's connections would
 * wait out, nor while a request off the loops that waited before now runs (it used a quarter of the time since the
 * previous look on a CPU: a query done, its result being rendered), unless {@link ComputeShare#loopsYield} asks for it
 * (many computing requests that get far less than stock's time slicing gives them). Cost: one {@code sched_yield} per
 * round of a loop while such requests wait, and for the detector one read of each such thread's CPU clock per look.
 * Counted: {@code LoopYields} (MBean). The system property {@code io.hybridconnector.loopYields=false} turns it off.
 * <p>
 * Stall detector only, apart from construction and {@link #loopsYield}.
 */
public final class PreemptionPacer {

    /**
     * The detector's look period while it paces: shorter than the timer tick of the common kernels (4 ms at 250 Hz,
     * 10 ms at 100 Hz), no shorter than the scheduler's slice needs (about a millisecond by default on a few CPUs).
     * The system property {@code io.hybridconnector.pacedLookMicros} sets another (0: no pacing, to measure without).
     */
    static final long DEFAULT_PACED_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final LoopThreadPool pool;
    private final long pacedLookNanos;
    /** Computing threads that do not make the detector pace: one per CPU (with more, some CPU has two). */
    private final int unpacedComputing;
    private final LoopCounters counters;
    private final boolean yieldToWaiters;
    /** Written by the detector at each look, read by the loops once a round. */
    private volatile boolean loopsYield;

    /**
     * @param pool     whose threads may compute off the loops; {@code null}: never pace
     * @param counters where paced looks are counted
     */
    public PreemptionPacer(LoopThreadPool pool, LoopCounters counters) {
        this(pool, counters, TimeUnit.MICROSECONDS.toNanos(Long.getLong("io.hybridconnector.pacedLookMicros",
                TimeUnit.NANOSECONDS.toMicros(DEFAULT_PACED_LOOK_NANOS))), Runtime.getRuntime().availableProcessors(),
                !"false".equals(System.getProperty("io.hybridconnector.loopYields")));
    }

    /** @param unpacedComputing how many threads may compute off the loops before the detector paces */
    PreemptionPacer(LoopThreadPool pool, LoopCounters counters, long pacedLookNanos, int unpacedComputing,
            boolean yieldToWaiters) {
        this.pool = pool;
        this.yieldToWaiters = pool != null && yieldToWaiters;
        this.counters = counters;
        this.pacedLookNanos = pool == null ? 0 : Math.max(0, pacedLookNanos);
        this.unpacedComputing = Math.max(0, unpacedComputing);
    }

    /**
     * Looks at the pool's threads: sets {@link #loopsYield}, and says when to look again.
     *
     * @return nanoseconds until the detector should look again because more requests compute off the loops than
     *         there are CPUs, or -1 if not (or pacing is off): then the budget alone sets the period
     */
    long nextLookNanos() {
        if (pool == null) {
            return -1;
        }
        int computing = 0;
        int waiting = 0;
        boolean runningLong = false;
        long now = System.nanoTime();
        for (LoopThread t : pool.threads()) {
            if (t.computesOffLoop()) {
                computing++;
            } else if (t.offLoopSince() != 0) {
                waiting++;
                runningLong |= yieldToWaiters && ranMostSinceLastLook(t, now);
            }
        }
        boolean yield = yieldToWaiters && waiting > 0 && computing == 0 && !runningLong;
        if (loopsYield != yield) {
            loopsYield = yield;
        }
        if (pacedLookNanos == 0 || computing <= unpacedComputing) {
            return -1;
        }
        counters.pacedLooks.increment();
        return pacedLookNanos;
    }

    /**
     * @return whether a thread off the loops that is not known to compute used a quarter or more of the time since the
     *         detector's previous look on a CPU: a request that waited (for JDBC, say) and now computes (renders its
     *         result). Yielding to it would give it the loop's CPU for a slice each round.
     */
    private static boolean ranMostSinceLastLook(LoopThread t, long now) {
        long since = t.offLoopSince();
        long cpu = ThreadTimes.cpuNanosOf(t);
        boolean seenBefore = t.pacerSawOffLoopSince == since && cpu >= 0;
        boolean ran = seenBefore && (cpu - t.pacerSawCpuNanos) * 4 >= now - t.pacerSawAtNanos;
        t.pacerSawOffLoopSince = since;
        t.pacerSawCpuNanos = cpu;
        t.pacerSawAtNanos = now;
        return ran;
    }

    /** The detector stops looking (nothing runs on the loops): no loop should go on yielding meanwhile. */
    void stopLooking() {
        loopsYield = false;
    }

    /**
     * @return whether a loop should give up its CPU once this round: requests wait off the loops and none computes.
     *         A loop's leader, once a round; one volatile read.
     */
    boolean loopsYield() {
        return loopsYield;
    }
}
