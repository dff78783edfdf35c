package io.hybridconnector.loop;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.classify.ThreadTimes;

/**
 * Whether the loops serve their ready connections on pool threads for now, as stock NIO does (a poller hands each
 * request to a worker), because requests are computing beside them.
 * <p>
 * Why: the kernel's scheduler shares a CPU per thread. A loop is one thread, so beside k threads that compute (requests
 * whose loop moved away because they ran past the budget, or whose class did) all of a loop's connections together get
 * one (k+1)-th of the CPU, in slices that come round only after every computing thread had its own. Stock NIO's short
 * requests each run on a worker woken for it, and a thread that just woke is scheduled ahead of those that ran long:
 * measured on one core with 4 connections computing 20 ms each beside 50 light connections, stock's light requests
 * had p99 7.5 ms, ours on the loop 16.5 ms, and the computing requests took 69 % of the CPU instead of stock's 56 %.
 * While requests compute, serving every ready connection on a pool thread gives short requests the same footing as on
 * stock, at stock's cost (a wake-up and two switches per request); as soon as nothing computes the loops serve inline
 * again, so short requests pay nothing for this when there is nothing to be fair to.
 * <p>
 * Decided by the stall detector at each look ({@link #look}), from the pool's threads that work off the loops
 * (finishing a request whose loop moved away, or running a task): one whose current piece of work used
 * {@link #COMPUTING_CPU_NANOS} of CPU since the detector first saw it computes; a request that sleeps, waits for a
 * lock or a database uses none, a short request far less; a request whose loop moved because it waits for its own
 * client (an upload, a large download) does not count: its CPU time is copying paced by that client. On once the loops
 * and the computing threads together are more than four times the CPUs the process may use
 * ({@code availableProcessors()}, which follows {@code taskset} and container limits), i.e. once each loop would get
 * less than a quarter of a CPU: with more CPU than that, serving inline costs the short requests less than a switch
 * per request does ({@link #computingToShare}; also measured on two cores with one loop beside one computing request:
 * the worst of 50 light requests 12-78 ms inline, 103-153 ms on pool threads; on one core beside one request
 * computing 200 ms, light p99 6.0 ms inline and 7.1 ms on pool threads). Off once that was last seen
 * {@link #HOLD_NANOS} ago, so that the gap between two computing requests does not flip it. Leaders read it once per ready connection (one volatile read); only the detector writes
 * it.
 */
public final class TimeSlicing {

    /** CPU time a thread's current work must use, from the detector's first sight of it, to count as computing. */
    static final long COMPUTING_CPU_NANOS = TimeUnit.MICROSECONDS.toNanos(1500);
    /** How long time slicing stays on after the last computing thread was seen. */
    static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final LoopThreadPool pool;
    private final boolean enabled;
    /**
     * Computing threads from which each loop would get less than a quarter of a CPU beside them: then the short
     * requests of a loop, all on one thread, are served too seldom, and serving them on pool threads pays. With fewer,
     * serving inline costs them less than a thread switch per request does. Measured (fairness cell, 50 light
     * connections beside 4 requests computing 20 ms): on one core (each loop 1/5 of a CPU) light p99 13.3 ms inline,
     * 9.77 sliced, stock NIO 7.09-10.4; on two cores (each loop about 1/3) 4.94 inline, 9.67 sliced, stock 5.01.
     */
    private final int computingToShare;
    private volatile boolean on;
    /** Detector only. */
    private long lastComputingNanos;
    private final LoopCounters counters;

    /**
     * @param enabled {@code false} ({@code timeSlicing="off"}): loops always serve inline
     */
    public TimeSlicing(LoopThreadPool pool, LoopCounters counters, boolean enabled, int loops) {
        this.pool = pool;
        this.counters = counters;
        this.enabled = enabled && THREADS.isThreadCpuTimeSupported();
        this.computingToShare = Math.max(1, 4 * Runtime.getRuntime().availableProcessors() - loops + 1);
    }

    /** @return whether ready connections go to pool threads for now. Any thread; one volatile read. */
    public boolean isOn() {
        return on;
    }

    /**
     * Looks at the threads that work off the loops and switches time slicing on or off. Stall detector only.
     *
     * @return whether any thread works off the loops or slicing is on (the detector keeps looking meanwhile)
     */
    boolean look(long now) {
        if (!enabled) {
            return false;
        }
        boolean anyWorking = false;
        int computingThreads = 0;
        for (LoopThread t : pool.threads()) {
            long since = t.offLoopSince();
            if (since == 0) {
                continue;
            }
            anyWorking = true;
            if (t.lastMove() == HandOffPolicy.Decision.SOCKET_WAIT) {
                // Reading or writing its own client (an upload, a 10 MB download): its CPU time is that copying,
                // paced by the client; serving everyone else on pool threads for it only cost the others (measured:
                // beside 2 downloads on one core, light p99 14.5 ms sliced, 11.5 inline, stock 10.7).
                continue;
            }
            long cpu = ThreadTimes.cpuNanosOf(t);
            if (cpu < 0) {
                continue; // exited meanwhile
            }
            if (t.seenOffLoopSince != since) {
                t.seenOffLoopSince = since;
                t.cpuAtFirstSight = cpu;
            } else if (cpu - t.cpuAtFirstSight >= COMPUTING_CPU_NANOS) {
                computingThreads++;
            }
        }
        if (computingThreads >= computingToShare) {
            lastComputingNanos = now;
            if (!on) {
                on = true;
                counters.timeSlicingOn.increment();
            }
        } else if (on && now - lastComputingNanos >= HOLD_NANOS) {
            on = false;
        }
        return anyWorking || on;
    }
}
