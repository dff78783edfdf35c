package io.hybridconnector.loop;

import java.util.concurrent.atomic.LongAdder;

import io.hybridconnector.loop.HandOffPolicy.Decision;

/**
 * Counters of one connector's threading, shared by its loops. Any thread, lock-free; the fast path adds to
 * {@link #inlineRuns} only.
 */
public final class LoopCounters {

    /** Requests and events run inline on a loop leader, with no thread switch. */
    final LongAdder inlineRuns = new LongAdder();
    /** Loops given to another thread, one counter per {@link Decision} (the {@code STAY} one stays 0). */
    private final LongAdder[] handOffs = new LongAdder[Decision.values().length];
    /** Hand-offs that found every thread busy: the loop waited for one to free up. */
    final LongAdder leaderlessHandOffs = new LongAdder();
    /** Waits for socket readiness on the requesting thread (blocking read or write that got 0 bytes). */
    final LongAdder socketWaits = new LongAdder();
    /** Events dispatched to a loop from another thread (async completion, re-arm after a blocked request). */
    final LongAdder crossThreadTasks = new LongAdder();
    /** Selector wake-ups by other threads: at most one per select that may block ({@link EventLoop#wakeup}). */
    final LongAdder selectorWakeups = new LongAdder();
    /** Executor work (HTTP/2 streams) a leader ran itself after its ready connections instead of waking a thread. */
    final LongAdder deferredTasks = new LongAdder();
    /** Backed-up batches of ready connections served least recently served first ({@link ReadyOrder}). */
    final LongAdder reorderedBatches = new LongAdder();
    /** Ready connections that sat a round out after a run longer than their share of the round ({@link RoundShares}). */
    final LongAdder roundsSatOut = new LongAdder();
    /** Times {@link TimeSlicing} went on: requests computed beside the loops, which then served on pool threads. */
    final LongAdder timeSlicingOn = new LongAdder();
    /** Of {@link #timeSlicingOn}, the times a loop's round was uneven ({@link RunMix}). */
    final LongAdder timeSlicingOnUnevenRounds = new LongAdder();
    /** Ready connections a loop gave to a pool thread because {@link TimeSlicing} was on. */
    final LongAdder timeSlicedRuns = new LongAdder();
    /** Ready connections served on the operator's executor because their previous request left its loop. */
    final LongAdder executorRuns = new LongAdder();
    /** Requests a loop held until their head and small body were in (the endpoint's read-ahead). */
    private final LongAdder requestsHeld = new LongAdder();
    /** Held requests answered 408 and closed: they arrived slower than the minimum data rate. */
    private final LongAdder slowRequestsClosed = new LongAdder();

    public LoopCounters() {
        for (int i = 0; i < handOffs.length; i++) {
            handOffs[i] = new LongAdder();
        }
    }

    /** Counts a hand-off by its cause. */
    void handedOff(Decision why) {
        handOffs[why.ordinal()].increment();
    }

    public long getHandOffs(Decision why) {
        return handOffs[why.ordinal()].sum();
    }

    public long getRoundsSatOut() {
        return roundsSatOut.sum();
    }

    public long getInlineRuns() {
        return inlineRuns.sum();
    }

    public long getHandOffs() {
        long sum = 0;
        for (LongAdder a : handOffs) {
            sum += a.sum();
        }
        return sum;
    }

    /** Requests whose class held loops before, moved before they ran. */
    public long getPredictedHandOffs() {
        return getHandOffs(Decision.PREDICTED);
    }

    /** Requests the stall detector saw wait (sleep, lock, system call). */
    public long getStallHandOffs() {
        return getHandOffs(Decision.BLOCKED);
    }

    /** Requests the stall detector saw compute past the budget while others may have waited. */
    public long getComputedHandOffs() {
        return getHandOffs(Decision.COMPUTED);
    }

    /** Leaders about to wait for their own socket (a request body in flight, a slow reader). */
    public long getIoHandOffs() {
        return getHandOffs(Decision.SOCKET_WAIT);
    }

    public long getLeaderlessHandOffs() {
        return leaderlessHandOffs.sum();
    }

    public long getSocketWaits() {
        return socketWaits.sum();
    }

    public void socketWait() {
        socketWaits.increment();
    }

    public long getCrossThreadTasks() {
        return crossThreadTasks.sum();
    }

    public long getSelectorWakeups() {
        return selectorWakeups.sum();
    }

    public long getDeferredTasks() {
        return deferredTasks.sum();
    }

    public long getReorderedBatches() {
        return reorderedBatches.sum();
    }

    public long getTimeSlicingOn() {
        return timeSlicingOn.sum();
    }

    public long getTimeSlicingOnUnevenRounds() {
        return timeSlicingOnUnevenRounds.sum();
    }

    public long getTimeSlicedRuns() {
        return timeSlicedRuns.sum();
    }

    /** Counts a ready connection served on a pool thread because requests compute beside the loops. */
    public void timeSlicedRun() {
        timeSlicedRuns.increment();
    }

    public long getExecutorRuns() {
        return executorRuns.sum();
    }

    public void requestHeld() {
        requestsHeld.increment();
    }

    public long getRequestsHeld() {
        return requestsHeld.sum();
    }

    public void slowRequestClosed() {
        slowRequestsClosed.increment();
    }

    public long getSlowRequestsClosed() {
        return slowRequestsClosed.sum();
    }

    /** Counts a ready connection served on the operator's executor ({@code executor}, {@code useVirtualThreads}). */
    public void executorRun() {
        executorRuns.increment();
    }

    public void reset() {
        inlineRuns.reset();
        for (LongAdder a : handOffs) {
            a.reset();
        }
        leaderlessHandOffs.reset();
        socketWaits.reset();
        crossThreadTasks.reset();
        selectorWakeups.reset();
        deferredTasks.reset();
        reorderedBatches.reset();
        timeSlicingOn.reset();
        timeSlicingOnUnevenRounds.reset();
        timeSlicedRuns.reset();
        executorRuns.reset();
        requestsHeld.reset();
        slowRequestsClosed.reset();
    }
}
