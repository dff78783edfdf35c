package io.hybridconnector.loop;

import java.util.ArrayDeque;

/**
 * Ready connections waiting for a pool thread while the loops serve them on pool threads ({@link TimeSlicing}), in
 * the order threads take them: connections whose last request was short first, each kind first come, first served;
 * a connection whose last request was long waits behind short ones for at most as long as that request ran, then
 * goes first.
 * <p>
 * Why short first: the kernel shares a CPU per thread and runs a thread that slept ahead of those that ran long, so on
 * stock NIO a short request's worker gets the CPU soon after it is woken, whatever computes beside it. Here the
 * threads that take turns are few at a time (one is woken per turn started, {@link LoopThreadPool#executeInTurn}), so
 * in one queue, first come, first served, a short request would wait for a thread behind every long one queued
 * before it: beside 16 connections computing 2 ms on one core, light requests got 0.31x-0.44x stock's throughput.
 * Why the patience: short requests that keep coming must not hold a long one back for ever. A long turn waits behind
 * short ones for at most as long as its last request ran, times the turns queued ahead of it when it came (at least
 * one, at most the pool's thread limit): that is how long the kernel's fair scheduler makes a thread that ran long
 * wait while each runnable thread catches up with it, and on stock NIO at most {@code maxThreads} workers are
 * runnable. A fixed patience of one hand-off budget (5 ms) served the long turns nearly in arrival order again beside
 * 16 computing 2 ms, whose runs take 30 ms or more on a shared core (light requests at 0.37x-0.73x stock's
 * throughput); a patience of as long as it ran, whatever was queued, left the light requests beside 16 computing
 * 2 ms of wall time at 0.92x (0.78x-1.02x) stock's throughput in nine quick maps, and counting the turns ahead took
 * them to 1.57x (1.32x-1.75x) in six of the same series (2026-12-07).
 * Where short ends ({@link #LONG_RUN_NANOS}): at the least limit, {@link HandOffPolicy#MIN_LIMIT_NANOS} (1 ms), the
 * same line that makes a request light for {@link TimeSlicing}. Until 2026-12-07 it was half the budget (2.5 ms),
 * which put about half of the turns of requests computing 2 ms of wall time (2-3 ms on a shared core) among the short
 * ones, where each held the light requests behind it: light requests beside 16 of them got 0.55x (0.48x-0.65x)
 * stock's throughput in 4 quick maps, 0.90x (0.73x-1.08x) in 7 with the line at 1 ms; 300 us was no better (0.75x in
 * 3).
 * <p>
 * Not thread-safe: the pool's lock guards it. Allocates one small holder per long turn (the slow path: a request
 * that ran long); none per short one.
 */
final class Turns {

    private final ArrayDeque<Runnable> shortTurns = new ArrayDeque<>();
    private final ArrayDeque<LongTurn> longTurns = new ArrayDeque<>();

    /** A request that ran for this long or more was not a light one: its connection's next turn is a long one. */
    static final long LONG_RUN_NANOS = HandOffPolicy.MIN_LIMIT_NANOS;
    /** Keeps a patience's end comparable with {@code System.nanoTime()} (far beyond any real one: about 73 years). */
    private static final long MAX_PATIENCE_NANOS = Long.MAX_VALUE / 4;

    /**
     * @param lastRunNanos how long the connection's last request ran ({@link LoopThreadPool#executeInTurn})
     * @param maxThreads   the pool's thread limit: a long turn waits for no more turns ahead of it than that
     */
    void add(Runnable turn, long lastRunNanos, int maxThreads) {
        if (lastRunNanos >= LONG_RUN_NANOS) {
            longTurns.addLast(new LongTurn(turn, System.nanoTime() + patienceNanos(lastRunNanos, maxThreads)));
        } else {
            shortTurns.addLast(turn);
        }
    }

    /** @return how long a turn whose last request ran {@code lastRunNanos} waits behind short ones, at most */
    private long patienceNanos(long lastRunNanos, int maxThreads) {
        long ahead = Math.max(1, Math.min(maxThreads, shortTurns.size() + longTurns.size()));
        return lastRunNanos > MAX_PATIENCE_NANOS / ahead ? MAX_PATIENCE_NANOS : lastRunNanos * ahead;
    }

    /** @return the turn a thread takes next, or {@code null} */
    Runnable poll() {
        LongTurn oldest = longTurns.peekFirst();
        if (oldest != null && (shortTurns.isEmpty() || System.nanoTime() - oldest.servedBy >= 0)) {
            longTurns.pollFirst();
            return oldest.turn;
        }
        return shortTurns.pollFirst();
    }

    boolean isEmpty() {
        return shortTurns.isEmpty() && longTurns.isEmpty();
    }

    void clear() {
        shortTurns.clear();
        longTurns.clear();
    }

    /** @param servedBy when its patience ends ({@code System.nanoTime()}) */
    private record LongTurn(Runnable turn, long servedBy) {
    }
}
