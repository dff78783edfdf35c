package io.hybridconnector.loop;

import java.nio.channels.SelectionKey;

/**
 * How a loop shares its rounds among the connections ready in them while it serves inline: each ready connection's
 * share of a round is the hand-off budget divided among the round's ready connections, and a connection whose run
 * held the loop longer than its share sits the next round it is ready in out. So while others are ready beside it, a
 * connection whose requests are long for the round is served at most every other round; alone, or with requests
 * within their share, it is served every round.
 * <p>
 * Why: a loop that serves every ready connection once per round shares its time per request, so that a request of
 * 0.5 ms takes twenty to thirty times what a light one does, every round, and each light connection's next request
 * waits for all of them. Under the least limit ({@link HandOffPolicy#MIN_LIMIT_NANOS}) such requests never leave the
 * loop, and stock NIO, whose kernel shares the CPU per thread, serves the light requests beside them sooner: on one
 * core beside 4 to 32 connections computing 0.5 ms of CPU, light requests got 0.73x-0.88x stock's throughput and a
 * light p99 up to 1.6x stock's (medians of five maps on a noisy host; one full-grid run on a quieter one: 0.30x-0.70x).
 * Sitting one round out took them to 0.85x-1.00x, p99 up to 1.34x (medians of eight maps, 2026-12-07,
 * bench/fairness-map/results/2026-12-07-round-shares).
 * <p>
 * Why one round and not a debt paid back share by share (deficit round robin, the kernel's sharing per connection):
 * it is stricter than stock is with requests that take a fixed wall time. Stock's kernel preempts such a request for a
 * light one and the request still ends on time, having used less CPU; a loop cannot preempt a run. Repaying the whole
 * excess gave the light requests 0.90x-1.86x stock's throughput but requests computing 0.5 ms of wall time beside them
 * 0.65x-0.90x; one round out left those at 0.90x-1.04x, and two rounds out did no better in two maps.
 * <p>
 * Only a run under the least limit marks its connection ({@link #ran}). Only a connection waiting to be read sits out
 * (a write that waits for the loop does not), and its bytes stay unread, so the next select reports it again. The
 * mark is kept on the connection ({@link LoopChannel#ranOverShare}); the fast path (a run within its share) compares
 * one number. Leader only.
 */
final class RoundShares {

    private final long budgetNanos;
    private final LoopThreadPool pool;
    /** Each ready connection's share of the current round; {@code Long.MAX_VALUE} while one is ready alone. */
    private long shareNanos = Long.MAX_VALUE;

    /**
     * @param budgetNanos how long a run may hold its loop while others may wait ({@code blockedHandOffMillis})
     * @param pool        the loops' pool: tells whether requests compute beside the loops
     */
    RoundShares(long budgetNanos, LoopThreadPool pool) {
        this.budgetNanos = budgetNanos;
        this.pool = pool;
    }

    /** A select reported {@code readyCount} connections: the round they are served in begins. */
    void roundBegins(int readyCount) {
        shareNanos = readyCount > 1 ? budgetNanos / readyCount : Long.MAX_VALUE;
    }

    /**
     * @param readyOps what the selector reported ready for the connection
     * @return whether the connection sits this round out; it is reported ready again by the next select, its bytes
     *         still unread
     */
    boolean sitsOut(LoopChannel channel, int readyOps) {
        if (!channel.ranOverShare()) {
            return false;
        }
        channel.ranOverShare(false);
        return shareNanos != Long.MAX_VALUE && readyOps == SelectionKey.OP_READ;
    }

    /**
     * The connection's run held the loop for {@code runNanos} of the current round. Only a run under the least limit
     * counts: one of 1 ms or more that still ended inline was either alone or kept by the stall detector because it
     * waited for a CPU ({@link HandOffPolicy.Decision#STARVED}), which is no sign of a long request (the same reason
     * the detector does not learn its class). And none counts while requests compute off the loops: the loop shares
     * the CPUs with them, so a light run is stretched by their time slices, and marking it made the light connections
     * sit rounds out beside 4 connections whose requests compute 30 ms 3 times in 10 (one core, three quick maps:
     * light req/s 0.86x stock's against 1.02x, light p99 1.33x against 1.13x).
     */
    void ran(LoopChannel channel, long runNanos) {
        if (runNanos > shareNanos && runNanos < HandOffPolicy.MIN_LIMIT_NANOS && !pool.computingBesideLoops()) {
            channel.ranOverShare(true);
        }
    }
}
