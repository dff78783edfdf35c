package io.hybridconnector.loop;

import java.nio.channels.SelectionKey;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Puts a backed-up batch of ready keys in the order of least recently served first, so that a loop serves its
 * connections close to the order their requests arrived, as stock NIO's one queue of workers does.
 * <p>
 * Why it is needed: the JDK's selector is level-triggered, and epoll puts a key it reported back at the tail of its
 * ready list in the order it reported them; new readiness of a key already on that list does not move it. So the keys
 * a batch served come out of the next select in the same order again, however their next requests arrived, and a key
 * whose next request arrived just after that select looked at it drops off the list and joins behind all of them.
 * With short batches nobody notices. Under overload, where one batch takes hundreds of milliseconds, the same
 * connections keep the back of the batch and some requests wait two batches: measured on the reliability suite's
 * overload (about 500 connections offering 3x capacity), a third of the connections had over 10 % of their
 * requests above 350 ms on ours and none on stock, and ours' p99 was 1.3-1.8x stock's with the same p50.
 * <p>
 * Least recently served is by service, not by round: connections served in the same round are ordered as they were
 * served, not as the selector reports them (which is the order it reported them in the round before, whatever order
 * the loop then served them in). Under closed-loop clients a connection served earlier sends its next request earlier,
 * so this is arrival order as near as the loop can tell without reading. Measured on the reliability suite's overload,
 * 3 runs each: ordered by round (ties in the selector's order), ours' p99 was 2.03x its p50 and 1.20x stock's p99; by
 * service, 1.64x and 1.12x ({@code bench/reliability/results/2026-12-02-served-order}).
 * <p>
 * Only a batch that followed a long round is sorted (the round's length is measured anyway around the select), so the
 * fast path pays nothing but the one {@code long} each connection carries (never wrapping) and one increment per
 * service. Leader only; not thread-safe.
 */
final class ReadyOrder {

    /** A round at least this long (select to select) backs up enough for the order to matter. */
    static final long BACKED_UP_ROUND_NANOS = 10_000_000;

    private static final Comparator<SelectionKey> LEAST_RECENTLY_SERVED = (a, b) -> Long.compare(
            ((LoopChannel) a.attachment()).servedAs(), ((LoopChannel) b.attachment()).servedAs());

    private SelectionKey[] batch = new SelectionKey[64];

    /**
     * Moves the connections whose last run waited off the loop ({@link LoopChannel#lastRunWaitedOffLoop}) to the front
     * of {@code ready}, each group in the order it had. Serving such a connection holds the loop for the few
     * microseconds it takes to read its request and give the loop away (its thread then sleeps, so the next leader gets
     * the CPU); behind a batch of short requests, its wait (a sleep, a query, a download's next request) would start
     * only after all of them. Measured: see DESIGN, "Order of service under backlog".
     *
     * @param waiters how many of {@code ready} waited off the loop last time, counted as the selector reported them
     */
    void waitersFirst(ArrayDeque<SelectionKey> ready, int waiters) {
        int n = ready.size();
        if (waiters == 0 || waiters == n) {
            return;
        }
        if (batch.length < n) {
            batch = new SelectionKey[Math.max(n, batch.length * 2)];
        }
        int others = 0;
        for (int i = 0; i < n; i++) {
            SelectionKey key = ready.pollFirst();
            if (((LoopChannel) key.attachment()).lastRunWaitedOffLoop()) {
                ready.addLast(key);
            } else {
                batch[others++] = key;
            }
        }
        for (int i = 0; i < others; i++) {
            ready.addLast(batch[i]);
            batch[i] = null;
        }
    }

    /**
     * Sorts {@code ready} least recently served first if the round before the select that filled it was long.
     *
     * @return whether it sorted
     */
    boolean sortIfBackedUp(ArrayDeque<SelectionKey> ready, long roundNanos) {
        int n = ready.size();
        if (roundNanos < BACKED_UP_ROUND_NANOS || n < 2) {
            return false;
        }
        if (batch.length < n) {
            batch = new SelectionKey[Math.max(n, batch.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            batch[i] = ready.pollFirst();
        }
        Arrays.sort(batch, 0, n, LEAST_RECENTLY_SERVED);
        for (int i = 0; i < n; i++) {
            ready.addLast(batch[i]);
            batch[i] = null;
        }
        return true;
    }
}
