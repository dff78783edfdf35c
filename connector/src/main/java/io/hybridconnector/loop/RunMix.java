package io.hybridconnector.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the runs under the least limit ({@link HandOffPolicy#MIN_LIMIT_NANOS}) of one loop's connections looked like
 * lately: when a light one (under that limit) last ended, and when a round of the loop was last uneven: brief runs
 * (under {@link #BRIEF_NANOS}) in it waited for short ones (from {@link #SHORT_NANOS}) that together held the loop for
 * the least limit or more. Read by the stall detector for {@link TimeSlicing}.
 * <p>
 * Why: a run under the least limit never leaves its loop, so a loop serves such runs one after another, each ready
 * connection once a round. When several of them are long beside the others, a brief request waits every round for
 * all of them, longer than the least limit that bounds its wait for any one run that would be moved, where stock
 * NIO's kernel preempts a long request's worker for it. Sharing the rounds ({@link RoundShares}) halves that wait, and
 * no inline rule met both kinds of such requests: those that compute a fixed CPU time want to be served less, those
 * that run a fixed wall time (stock preempts them and they still end on time) more. So a loop whose rounds are uneven
 * is sliced as one beside computing requests is. On the fairness map's one-core cells of 4 to 32 connections
 * computing 0.5 ms (by CPU time and by wall time), serving every request on pool threads met every bound of issue 38
 * in 28 of 32 cells, inline rounds in 28 of 56, this rule in 28 of 32
 * (bench/fairness-map/results/2026-12-07-uneven-rounds).
 * <p>
 * Only inline runs tell brief from short, by the wall clock: the leader runs unpreempted (or the stall detector would
 * see it). On a pool thread a run's wall time is mostly other threads' slices, and its thread's CPU clock costs a
 * system call per read: reading it before and after each sliced run doubled the light p99 on one core beside 16
 * requests of 0.5 ms. So {@link TimeSlicing} holds slicing on for a second after the last uneven round, then lets the
 * loops serve inline again to look. The round's sums are the leader's own fields; the detector reads two opaque
 * timestamps. On the fast path: a compare and an add per run, one more compare per round.
 */
final class RunMix {

    /**
     * A run under this is brief: what slicing puts first. A quarter of the least limit: a light page of a few tens of
     * microseconds is brief on any host, cold or warm.
     */
    static final long BRIEF_NANOS = HandOffPolicy.MIN_LIMIT_NANOS / 4;
    /**
     * A run from this up to the least limit is short: too short to be moved, long beside a brief one. Twice the brief
     * line, so that requests that all take about the same time are never uneven, however near the lines they run (100
     * KB responses take 250-400 us each).
     */
    static final long SHORT_NANOS = 2 * BRIEF_NANOS;

    private final LoopThreadPool pool;
    /** Leader only: the current round's short runs in all, and whether a brief one ran in it. */
    private long shortInRound;
    private boolean briefInRound;
    private long lastLightNanos;
    private long lastUnevenNanos;
    private static final VarHandle LAST_LIGHT;
    private static final VarHandle LAST_UNEVEN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LAST_LIGHT = lookup.findVarHandle(RunMix.class, "lastLightNanos", long.class);
            LAST_UNEVEN = lookup.findVarHandle(RunMix.class, "lastUnevenNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** @param pool the loops' pool: tells whether requests compute beside the loops */
    RunMix(LoopThreadPool pool) {
        this.pool = pool;
    }

    /**
     * A request of the loop's connections ran inline for {@code nanos} (under the least limit), ending at {@code now}.
     * Leader only: one opaque store and a compare, and an add for a brief or short run.
     */
    void ranInline(long nanos, long now) {
        LAST_LIGHT.setOpaque(this, now);
        if (nanos < BRIEF_NANOS) {
            briefInRound = true;
        } else if (nanos >= SHORT_NANOS) {
            shortInRound += nanos;
        }
    }

    /**
     * The leader is about to select again: the round of the previous select ended. It was uneven if its short runs
     * held the loop for the least limit or more while a brief one waited in it. Not while requests compute off the
     * loops: the loop then shares the CPUs with them, and their time slices stretch its brief runs into short ones
     * (as {@link RoundShares#ran} says). Leader only.
     */
    void roundEnds(long now) {
        if (briefInRound && shortInRound >= HandOffPolicy.MIN_LIMIT_NANOS && !pool.computingBesideLoops()) {
            LAST_UNEVEN.setOpaque(this, now);
        }
        briefInRound = false;
        shortInRound = 0;
    }

    /**
     * A request of the loop's connections ran on a pool thread for {@code nanos} by the wall clock, ending at
     * {@code now}. Only whether it was light is noted: while it shares a CPU with other threads, its wall time is
     * mostly their slices. Any thread.
     */
    void ranOffLoop(long nanos, long now) {
        if (nanos < HandOffPolicy.MIN_LIMIT_NANOS) {
            LAST_LIGHT.setOpaque(this, now);
        }
    }

    /** @return whether a run under the least limit ended at or after {@code since} */
    boolean lightSince(long since) {
        return at(LAST_LIGHT, since);
    }

    /** @return whether a round of the loop ended uneven at or after {@code since} */
    boolean unevenSince(long since) {
        return at(LAST_UNEVEN, since);
    }

    private boolean at(VarHandle field, long since) {
        long at = (long) field.getOpaque(this);
        return at != 0 && at - since >= 0;
    }
}
