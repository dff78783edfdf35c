package io.hybridconnector.loop;

import java.util.concurrent.TimeUnit;

/**
 * The one place that decides whether a request keeps its loop or gives it to another thread. Every hand-off the
 * connector makes is one of this class's {@link Decision}s, asked at one of three {@link Moment}s:
 * <ul>
 * <li>a request starts whose class held loops before (it blocked, or it ran past the budget): it moves at once, so
 * the loop's other connections do not wait for the stall detector to notice it (seeds/000: classify heavy work);</li>
 * <li>the leader is about to wait for its own socket (a request body still in flight, a client that reads slowly):
 * it moves, because only now has the request really blocked (seeds/002: hand off lazily, but do hand off);</li>
 * <li>the stall detector looks at a run in progress: one that waits (a sleep, a lock, a JDBC read in the kernel)
 * moves at once; one that computes moves once it has held the loop for its share of the budget while other
 * connections of the loop may have work, which bounds how long any connection waits for its loop because of
 * another's request. The share is the budget divided among the run and the connections ready behind it
 * ({@link #limitNanos}): sixteen ready connections wait for a 2 ms request no more than for one 5 ms request. A run
 * whose own connection's write waits for the loop moves at its limit whatever it does and whoever waits: it may be
 * waiting for that write (Tomcat's WebSocket close waits so for the message being sent), which only the loop it holds
 * would complete.</li>
 * </ul>
 * The fast path never asks: a short request starts, runs and ends on its leader with no hand-off, and the detector
 * sees its run only if it lasts. Immutable; any thread.
 */
public final class HandOffPolicy {

    /** What the policy decided: keep the loop, or why it moves. */
    public enum Decision {
        /** The request keeps its loop: it is short so far, or nobody else waits for the loop. */
        STAY,
        /** The request's class held loops before: the loop moves before the request runs. */
        PREDICTED,
        /**
         * The leader is about to wait for its own socket; or, seen by the detector, it held the loop for its share of
         * the budget while a write of its own connection waited for that loop.
         */
        SOCKET_WAIT,
        /** The detector saw the leader wait: in a sleep, a lock or a condition, or in a system call. */
        BLOCKED,
        /** The request computed for the budget while other connections of the loop may have work. */
        COMPUTED,
        /**
         * The request held its loop for the budget but was on a CPU for less than half of it: it was ready to run
         * while other threads had the CPUs (an overloaded machine). The loop moves, so that its other connections are
         * served, but the request's class is not learnt as long: predicting it would add a hand-off to every short
         * request exactly when the CPUs have no time to spare.
         */
        STARVED
    }

    /** When the policy is asked. */
    public enum Moment {
        /** A request of a class that held loops before is about to run. */
        LONG_CLASS_STARTS,
        /** The leader is about to wait until its socket can be read or written. */
        SOCKET_WAIT,
        /** The stall detector looks at a run in progress. */
        DETECTOR_TICK
    }

    /** What the leader of a run in progress was doing when the detector looked. */
    public enum Activity {
        /** On a CPU, or ready to be: computing. */
        RUNNING,
        /** Ready to run, but on a CPU for less than half the time the detector watched it: waiting for a CPU. */
        STARVED,
        /**
         * Ready to run, first seen (the detector's own look came late, on a busy machine) less than half a budget
         * ago: whether it computes or waits for a CPU is not known yet; the detector looks again in half a budget.
         */
        JUST_SEEN,
        /** Parked in Java: {@code Thread.sleep}, a monitor, a {@code LockSupport.park}. */
        WAITING_IN_JAVA,
        /** Asleep in a system call (a socket read to a database shows as RUNNABLE to Java). */
        WAITING_IN_KERNEL
    }

    /**
     * The least a run may hold its loop before the detector moves it, however many connections wait: below this a
     * hand-off costs the others more than the run does (a thread switch and a cold cache), and the detector would
     * wake more often than the timer tick of common kernels.
     */
    public static final long MIN_LIMIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long budgetNanos;

    /**
     * @param budgetMillis how long a run may hold its loop while others may wait for it ({@code blockedHandOffMillis})
     */
    public HandOffPolicy(long budgetMillis) {
        this.budgetNanos = TimeUnit.MILLISECONDS.toNanos(budgetMillis);
    }

    public long budgetNanos() {
        return budgetNanos;
    }

    /**
     * @param waiting ready connections waiting behind the run when it began
     * @return how long the run may hold its loop while they wait: the budget shared by the run and them, but at least
     *         {@link #MIN_LIMIT_NANOS} (never more than the budget)
     */
    public long limitNanos(int waiting) {
        long share = budgetNanos / (1 + Math.max(0, waiting));
        return Math.min(budgetNanos, Math.max(MIN_LIMIT_NANOS, share));
    }

    /**
     * @param moment        who asks
     * @param runNanos      how long the run has held its loop (detector ticks only)
     * @param activity      what its leader was doing (detector ticks only)
     * @param othersMayWait whether another connection, task or HTTP/2 stream of the loop may be ready meanwhile
     */
    public Decision decide(Moment moment, long runNanos, Activity activity, boolean othersMayWait) {
        return decide(moment, runNanos, budgetNanos, activity, othersMayWait);
    }

    /**
     * @param limitNanos how long this run may hold its loop ({@link #limitNanos(int)}; detector ticks only)
     */
    public Decision decide(Moment moment, long runNanos, long limitNanos, Activity activity, boolean othersMayWait) {
        return decide(moment, runNanos, limitNanos, activity, othersMayWait, false);
    }

    /**
     * @param ownWriteWaits whether a write of the run's own connection waits for this loop (detector ticks only): the
     *                      run may be waiting for it, and only the loop it holds would complete it
     */
    public Decision decide(Moment moment, long runNanos, long limitNanos, Activity activity, boolean othersMayWait,
            boolean ownWriteWaits) {
        switch (moment) {
            case LONG_CLASS_STARTS:
                return Decision.PREDICTED;
            case SOCKET_WAIT:
                return Decision.SOCKET_WAIT;
            case DETECTOR_TICK:
                return onTick(runNanos, limitNanos, activity, othersMayWait, ownWriteWaits);
            default:
                throw new IllegalArgumentException(String.valueOf(moment));
        }
    }

    private Decision onTick(long runNanos, long limitNanos, Activity activity, boolean othersMayWait,
            boolean ownWriteWaits) {
        if (activity == Activity.WAITING_IN_JAVA) {
            // Parked in Java, whatever its age: it blocked. (Not so for the kernel at first sight: a thread stopped
            // at a GC safepoint looks asleep there too, and a short system call is cheaper than a hand-off.)
            return Decision.BLOCKED;
        }
        if (runNanos < limitNanos) {
            return Decision.STAY;
        }
        if (ownWriteWaits) {
            // Whatever it does (computes, yields for it as Tomcat's WebSocket close does, or waits for a CPU), the run
            // holds the loop that must complete its own connection's write, and may be waiting for that write.
            return Decision.SOCKET_WAIT;
        }
        if (activity == Activity.WAITING_IN_KERNEL) {
            return Decision.BLOCKED;
        }
        if (!othersMayWait || activity == Activity.JUST_SEEN) {
            return Decision.STAY;
        }
        if (activity == Activity.STARVED) {
            // Waiting for a CPU is no sign of a long request, and a move does not give the others the CPU that is
            // lacking: only a run starved for the whole budget moves (a shared limit moved light runs on a busy
            // machine, a thread switch each).
            return runNanos < budgetNanos ? Decision.STAY : Decision.STARVED;
        }
        return Decision.COMPUTED;
    }
}
