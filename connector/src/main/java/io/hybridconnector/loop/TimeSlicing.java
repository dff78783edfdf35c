package io.hybridconnector.loop;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.hybridconnector.classify.ThreadTimes;

/**
 * Whether the loops serve their ready connections on pool threads for now, as stock NIO does (a poller hands each
 * request to a worker), because requests are computing beside them.
 * <p>
 * Why: the kernel's scheduler shares a CPU per thread, and a loop is one thread. Beside k threads that compute
 * (requests whose loop moved away because they ran past their limit, or whose class did) all of a loop's connections
 * together get one (k+1)-th of the CPU, where on stock NIO each of their requests runs on a worker of its own, and a
 * worker that just woke is scheduled ahead of the threads that ran long. The connector changes no thread's priority
 * (a thread a servlet starts would inherit it), so the one fair answer is stock's: while the computing requests
 * leave no CPU to the loops, every ready connection is served on a pool thread, at stock's cost (a wake-up and two
 * switches per request), taken in turn as stock's workers take requests from their queue, connections whose last
 * request was short first ({@link LoopThreadPool#executeInTurn}, {@link Turns}); as soon as fewer compute the loops
 * serve inline again, so that short requests pay nothing for this when there is nothing to be fair to.
 * <p>
 * Decided by the stall detector at each look ({@link #look}), from the pool's threads that work off the loops: one
 * computes if its loop moved because it computed ({@link LoopThread#computesOffLoop}), if it runs a request whose
 * class is known to compute, or if its current piece of work used {@link #COMPUTING_CPU_NANOS} of CPU since the
 * detector first saw it. A request that sleeps, waits for a lock or a database uses none, a short request far less; a
 * request whose loop moved because it waits for its own client (an upload, a large download) does not count: its CPU
 * time is copying paced by that client, and neither does a task that waited for its own socket. On while the
 * computing threads are at least as many as the CPUs the process may use: then no CPU is left to the loops, and they
 * would compete as one thread each against many (on two cores beside two computing 20 ms, serving from the first one
 * on made the light p99 3x stock's and the computing requests 0.63x, where inline met every bound); and while lighter
 * requests are served beside them: some request of the loops' connections ran, inline or on a pool thread, in less
 * than {@link HandOffPolicy#MIN_LIMIT_NANOS} ({@link EventLoop#ranOffLoop}). Those are what time slicing
 * protects. When every request computes alike (3x overload of one 1 ms page), there is no lighter request to put
 * first, and serving them on pool threads only widened the tail: p99 1.53x (1.24-1.58) stock's in three runs, against
 * 1.18x (0.95-1.30) inline in eleven (bench/reliability/results/2026-12-06-light-runs).
 * Off once both were last seen {@link #HOLD_NANOS} ago, so that the gap between two computing requests does not flip
 * it.
 * <p>
 * On as well, for {@link #UNEVEN_HOLD_NANOS}, once a loop's round was uneven ({@link RunMix}): runs under the least
 * limit, which never leave the loop and never count as computing here, held it for that limit or more in all while a
 * brief one waited. Leaders read it once per ready connection (one volatile read); only the detector writes it.
 */
public final class TimeSlicing {

    /** CPU time a thread's current work must use, from the detector's first sight of it, to count as computing. */
    static final long COMPUTING_CPU_NANOS = TimeUnit.MICROSECONDS.toNanos(1500);
    /** How long time slicing stays on after computing threads beside lighter requests were last seen. */
    static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * How long time slicing stays on after a loop's round was last seen uneven ({@link RunMix}). Only inline rounds
     * show that, so the loops serve inline again after this to look: a round or two of the old kind once a second.
     */
    static final long UNEVEN_HOLD_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final LoopThreadPool pool;
    /**
     * The CPUs the process may use ({@code availableProcessors()}, which follows {@code taskset} and container limits):
     * with fewer computing threads than this, a CPU is left for the loops and serving inline costs the short requests
     * less than a thread of their own each would.
     */
    private final int cpus;
    private final boolean enabled;
    private volatile boolean on;
    /** Detector only. */
    private long lastComputingNanos;
    /** When a loop's round was last seen uneven. Detector only. */
    private long lastUnevenNanos;
    /** When the detector last looked. Detector only. */
    private long lastLookNanos;
    private final LoopCounters counters;

    /**
     * @param enabled {@code false} ({@code timeSlicing="off"}): loops always serve inline
     */
    public TimeSlicing(LoopThreadPool pool, LoopCounters counters, boolean enabled) {
        this.pool = pool;
        this.cpus = Math.max(1, Runtime.getRuntime().availableProcessors());
        this.counters = counters;
        this.enabled = enabled && pool != null && THREADS.isThreadCpuTimeSupported();
    }

    /** @return whether ready connections go to pool threads for now. Any thread; one volatile read. */
    public boolean isOn() {
        return on;
    }

    /**
     * Looks at the threads that work off the loops and switches time slicing on or off. Stall detector only.
     *
     * @param loops the loops whose light requests count
     * @return whether any thread works off the loops or slicing is on (the detector keeps looking meanwhile)
     */
    boolean look(long now, EventLoop[] loops) {
        if (!enabled) {
            return false;
        }
        boolean anyWorking = false;
        int computing = 0;
        for (LoopThread t : pool.threads()) {
            long since = t.offLoopSince();
            if (since == 0) {
                continue;
            }
            anyWorking = true;
            if (t.computesOffLoop()) {
                computing++;
                continue;
            }
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
                computing++;
            }
        }
        pool.computingBesideLoops(computing > 0);
        boolean computingBesideLight = computing >= cpus && anyLoop(loops, m -> m.lightSince(now - HOLD_NANOS));
        if (computingBesideLight) {
            lastComputingNanos = now;
        }
        long since = lastLookNanos;
        boolean uneven = since != 0 && anyLoop(loops, m -> m.unevenSince(since));
        lastLookNanos = now;
        if (uneven) {
            lastUnevenNanos = now;
        }
        if (computingBesideLight || uneven) {
            if (!on) {
                on = true;
                counters.timeSlicingOn.increment();
                if (uneven) {
                    counters.timeSlicingOnUnevenRounds.increment();
                }
            }
        } else if (on && now - lastComputingNanos >= HOLD_NANOS && now - lastUnevenNanos >= UNEVEN_HOLD_NANOS) {
            on = false;
        }
        return anyWorking || on;
    }

    /** @return whether {@code test} holds for what the runs of any of {@code loops} looked like ({@link RunMix}) */
    private static boolean anyLoop(EventLoop[] loops, Predicate<RunMix> test) {
        for (EventLoop loop : loops) {
            if (test.test(loop.runMix())) {
                return true;
            }
        }
        return false;
    }
}
