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
 * Why the patience: short requests that keep coming must not hold a long one back for ever. As long as it last ran is
 * what the kernel's fair scheduler makes a thread that ran long wait while the others catch up; a fixed patience of
 * one hand-off budget (5 ms) served the long turns nearly in arrival order again beside 16 computing 2 ms, whose runs
 * take 30 ms or more on a shared core (light requests at 0.37x-0.73x stock's throughput).
 * <p>
 * Not thread-safe: the pool's lock guards it. Allocates one small holder per long turn (the slow path: a request
 * that ran long); none per short one.
 */
final class Turns {

    private final ArrayDeque<Runnable> shortTurns = new ArrayDeque<>();
    private final ArrayDeque<LongTurn> longTurns = new ArrayDeque<>();

    /**
     * @param lastLongRunNanos how long the connection's last request ran if it was long, else 0
     */
    void add(Runnable turn, long lastLongRunNanos) {
        if (lastLongRunNanos > 0) {
            longTurns.addLast(new LongTurn(turn, System.nanoTime() + lastLongRunNanos));
        } else {
            shortTurns.addLast(turn);
        }
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
