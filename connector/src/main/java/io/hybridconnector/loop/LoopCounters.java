package io.hybridconnector.loop;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one connector's threading, shared by its loops. Any thread, lock-free; the fast path adds to
 * {@link #inlineRuns} only.
 */
public final class LoopCounters {

    /** Requests and events run inline on a loop leader, with no thread switch. */
    final LongAdder inlineRuns = new LongAdder();
    /** Loops given to another thread because their leader blocked (seen by the stall detector). */
    final LongAdder stallHandOffs = new LongAdder();
    /** Loops given to another thread by a leader about to wait for its socket (read body, slow reader). */
    final LongAdder ioHandOffs = new LongAdder();
    /** Loops given away at the start of a request whose class is known to block (learnt, see RequestClassifier). */
    final LongAdder predictedHandOffs = new LongAdder();
    /** Hand-offs that found every thread busy: the loop waited for one to free up. */
    final LongAdder leaderlessHandOffs = new LongAdder();
    /** Waits for socket readiness on the requesting thread (blocking read or write that got 0 bytes). */
    final LongAdder socketWaits = new LongAdder();
    /** Events dispatched to a loop from another thread (async completion, re-arm after a blocked request). */
    final LongAdder crossThreadTasks = new LongAdder();
    /** Executor work (HTTP/2 streams) a leader ran itself after its ready connections instead of waking a thread. */
    final LongAdder deferredTasks = new LongAdder();

    public long getInlineRuns() {
        return inlineRuns.sum();
    }

    public long getHandOffs() {
        return stallHandOffs.sum() + ioHandOffs.sum() + predictedHandOffs.sum();
    }

    public long getPredictedHandOffs() {
        return predictedHandOffs.sum();
    }

    public long getStallHandOffs() {
        return stallHandOffs.sum();
    }

    public long getIoHandOffs() {
        return ioHandOffs.sum();
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

    public long getDeferredTasks() {
        return deferredTasks.sum();
    }

    public void reset() {
        inlineRuns.reset();
        stallHandOffs.reset();
        ioHandOffs.reset();
        predictedHandOffs.reset();
        leaderlessHandOffs.reset();
        socketWaits.reset();
        crossThreadTasks.reset();
        deferredTasks.reset();
    }
}
