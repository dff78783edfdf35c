package io.hybridconnector.loop;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.hybridconnector.classify.ThreadTimes;
import io.hybridconnector.loop.HandOffPolicy.Decision;
import io.hybridconnector.loop.HandOffPolicy.Moment;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * One selector and the connections registered with it, run by exactly one leader thread at a time.
 * <p>
 * The leader selects, and for each ready connection reads the request, runs the servlet and writes the response
 * inline: no queue, no wake-up, no second thread. When a request blocks (a servlet sleeps, waits on JDBC, or the
 * socket cannot take more bytes), the loop - not the request - moves: a parked thread from the
 * {@link LoopThreadPool} becomes the leader and carries on with the other connections, while the blocked thread
 * finishes its request and then parks. That is lazy asynchrony (LAIO): the cost of a thread switch is paid only by
 * requests that really block.
 *
 * <pre>
 *  runSeq (AtomicLong), the one word the hand-off turns on:
 *
 *   even --beginRun--> odd --endRun (CAS odd->even)--> even        fast path: the leader keeps the loop
 *                       |
 *                       +--handOff (CAS odd -> odd|HANDED_OFF)--> the leader's endRun CAS fails:
 *                            by the StallDetector (the run waits, or   it lost the loop, finishes its request
 *                            computes past the budget), or by the      and parks; the next leader sets
 *                            leader itself (about to wait for its      (odd &amp; ~HANDED_OFF) + 1 and goes on
 *                            socket; a class known to hold loops)
 * </pre>
 *
 * Why a run moves is decided by {@link HandOffPolicy}; this class only carries the decision out.
 * <p>
 * Thread use: {@link #lead} runs on the leader only. {@link #submit}, {@link #wakeup} and {@link #stop} are for any
 * thread. {@link #handOffIfLeader} and {@link #handOffBeforeRunning} are called by the leader itself;
 * {@link #handOff(long, Decision)} and the run accessors by the stall detector.
 */
public final class EventLoop {

    private static final Log log = LogFactory.getLog(EventLoop.class);

    /** Set in {@link #runSeq} when the leader running the current request lost the loop. */
    static final long HANDED_OFF = 1L << 62;

    /** How often idle and partially received connections are checked for timeouts. */
    private static final long SWEEP_INTERVAL_MILLIS = 1000;
    /** A select that took longer than this waited for readiness rather than only collecting it. */
    private static final long WAITED_IN_SELECT_NANOS = 50_000;

    private final int id;
    private final Selector selector;
    private final LoopThreadPool pool;
    private final LoopCounters counters;
    private final StallDetector detector;
    /** {@code false} without a stall detector (research thread models): the leader keeps its loop whatever it waits for. */
    private final boolean handOffs;

    /** The endpoint's periodic chores (trimming its pools), run with each timeout sweep; set before the loop runs. */
    private Runnable housekeeping = () -> { };

    /** Keys reported ready and not yet handled. Leader only; a new leader continues where the old one stopped. */
    private final ArrayDeque<SelectionKey> ready = new ArrayDeque<>();
    private final Consumer<SelectionKey> readyCollector = this::collectReady;
    /** How many of the keys the current select reported waited off the loop in their last run ({@link ReadyOrder}). */
    private int waitersCollected;
    /** Work from other threads: registrations, re-arms after a blocked request, async dispatches. */
    private final ConcurrentLinkedQueue<LoopTask> tasks = new ConcurrentLinkedQueue<>();
    /** Connections found locked by another thread when ready; re-armed once free. Leader only. */
    private final ArrayDeque<LoopChannel> contended = new ArrayDeque<>();
    /**
     * Work a leader gave to "an executor" while it ran a connection (HTTP/2 streams), run by the leader right after
     * the ready connections instead of waking another thread for each. Added to by the leader, which may lose the loop
     * while it adds (hence a concurrent deque), taken by the leader; a new leader runs what is left.
     */
    private final ConcurrentLinkedDeque<Runnable> deferred = new ConcurrentLinkedDeque<>();
    /**
     * Set by the leader just before a select that may block, cleared after it: another thread that queued work or
     * closed a connection wakes the selector only then, and only the first of them ({@link #wakeSelector}), as stock
     * NIO's poller counts its wake-ups. The JDK's {@code Selector.wakeup} takes a lock that the selecting thread takes
     * too as it wakes, and writes the wake-up under it; a thread woken by that write was often run at once in the
     * writer's place and then blocked on the lock the writer still held, until the writer got a CPU again. Waking on
     * every give-back (one per request served off the loop), beside 16 requests computing on one core, blocked the
     * loop's threads 4,215 times in one fairness-map run, for 70 s in all (stock: 3.9 s).
     */
    private final AtomicBoolean selecting = new AtomicBoolean();

    private final AtomicLong runSeq = new AtomicLong();
    /**
     * The connection the leader is running ({@code null} for a deferred task) and when its run began; both written
     * before the odd {@link #runSeq} that publishes them to the stall detector.
     */
    private LoopChannel current;
    private long runStartNanos;
    /** Ready connections still waiting behind the current run when it began; published with it, like the two above. */
    private int waitingAtRunStart;
    private volatile LoopThread leader;
    private volatile long leaderlessSinceNanos;
    /**
     * When a run last held this loop for {@link HandOffPolicy#MIN_LIMIT_NANOS} or more, or was moved away; 0: never.
     * Written by the leader as such a run ends and by the detector as it moves one; read by the detector, which looks
     * at each run's share of the budget only while this is recent ({@link StallDetector}).
     */
    private volatile long lastLongRunNanos;
    /** Collection milliseconds when the leader last saw a long run: a run stretched by a collection is not long. */
    private long gcMillisAtLongRun = -1;
    /** What this loop's runs under the least limit looked like lately, for {@link TimeSlicing}. */
    private final RunMix runMix;
    private volatile boolean running = true;

    private final AtomicInteger connectionCount = new AtomicInteger();
    private long nextSweepMillis;

    /**
     * The earliest moment the connections of the current batch of ready keys can have become ready: the start of
     * the select that found them if it waited, else the end of the select before it. Leader only.
     */
    private long readySinceNanos;
    private long lastSelectEndNanos;
    /** From the end of the select before the last one to the start of the last one: the loop's last round. */
    private long lastRoundNanos;
    private final LoopWaitHistogram waits = new LoopWaitHistogram();
    /** Connections served so far, numbering each service for {@link ReadyOrder} (a long: never wraps). Leader only. */
    private long served;
    private final ReadyOrder readyOrder = new ReadyOrder();
    /** {@code null} without a stall detector: then every ready connection is served every round. */
    private final RoundShares shares;

    /** Work a loop runs on its leader. */
    @FunctionalInterface
    public interface LoopTask {
        /** @return {@code false} if the leader lost the loop while running the task */
        boolean run();
    }

    /**
     * @param detector the stall detector, or {@code null} when blocked requests must not move the loop
     */
    public EventLoop(int id, LoopThreadPool pool, LoopCounters counters, StallDetector detector) throws IOException {
        this.id = id;
        this.handOffs = detector != null;
        this.selector = Selector.open();
        this.pool = pool;
        this.counters = counters;
        this.detector = detector;
        this.shares = detector == null ? null : new RoundShares(detector.policy().budgetNanos(), pool);
        this.runMix = new RunMix(pool);
    }

    public int getId() {
        return id;
    }

    public int getConnectionCount() {
        return connectionCount.get();
    }

    public LoopCounters getCounters() {
        return counters;
    }

    /** How long ready connections of this loop waited for it. */
    public LoopWaitHistogram waits() {
        return waits;
    }

    /**
     * Registers a channel with this loop's selector: a connection ({@link #assigned} counted it already) or the
     * listening socket. Leader only (call it from a {@link #submit submitted} task).
     */
    public SelectionKey register(SelectableChannel channel, int ops, LoopChannel attachment) throws IOException {
        return channel.register(selector, ops, attachment);
    }

    /**
     * A connection was given to this loop: counted at once, before its registration runs, so that the next choice of
     * a loop (the acceptor's least-loaded loop, a loop's balance check) sees it. Any thread.
     */
    public void assigned() {
        connectionCount.incrementAndGet();
    }

    /** Called once when a connection given to this loop ({@link #assigned}) closes. Any thread. */
    public void deregistered() {
        connectionCount.decrementAndGet();
    }

    /**
     * @return {@code true} while the leader runs a connection's work inline (a request, a flush) and still holds the
     *         loop; a run that lost the loop is counted by its thread ({@link LoopThreadPool#getOffLoopCount()}). Any
     *         thread, for monitoring.
     */
    public boolean isLeaderInRun() {
        long v = runSeq.get();
        return (v & 1) == 1 && (v & HANDED_OFF) == 0;
    }

    /**
     * @return whether the loop's last round (select to select) took {@link ReadyOrder#BACKED_UP_ROUND_NANOS} or more:
     *         it is backed up, and what it serves once a round waits that long. Leader only.
     */
    public boolean backedUp() {
        return lastRoundNanos >= ReadyOrder.BACKED_UP_ROUND_NANOS;
    }

    /** @return {@code true} if the calling thread is this loop's leader */
    public boolean inLoop() {
        return leader == Thread.currentThread();
    }

    /** Queues work for the leader and wakes the selector unless the caller is the leader. Any thread. */
    public void submit(LoopTask task) {
        tasks.add(task);
        if (!inLoop()) {
            counters.crossThreadTasks.increment();
            wakeSelector();
        }
    }

    /** Wakes the selector so that closes and interest changes made by another thread take effect now. */
    public void wakeup() {
        wakeSelector();
    }

    /**
     * Wakes the leader if it selects, or is about to ({@link #selecting}); otherwise it has yet to select, and that
     * select sees the caller's task or close. The caller's change precedes this read, as the leader's flag precedes
     * its look at the tasks: one of the two sees the other.
     */
    private void wakeSelector() {
        if (selecting.get() && selecting.compareAndSet(true, false)) {
            counters.selectorWakeups.increment();
            selector.wakeup();
        }
    }

    /** Leads the loop until the calling thread loses it (a request blocked) or the loop stops. */
    void lead(LoopThread me) {
        takeOver(me);
        try {
            while (running) {
                if (!drainReady() || !runDeferred()) {
                    return;
                }
                long now = System.currentTimeMillis();
                if (now >= nextSweepMillis) {
                    nextSweepMillis = now + SWEEP_INTERVAL_MILLIS;
                    if (!sweepTimeouts(now)) {
                        return;
                    }
                    housekeeping.run();
                }
                retryContended();
                // Last before the select: a connection that a request off the loop gave back during the batch
                // (its interest restored by a task) is in the very next select, not the one after.
                if (!runTasks()) {
                    return;
                }
                select(now);
            }
            closeAll();
        } catch (ClosedSelectorException e) {
            // Stopped while selecting.
        } catch (IOException | RuntimeException | Error e) {
            // Only the selector itself gets here: every connection's and task's failure is caught where it runs.
            log.error("Event loop " + id + " failed; its connections are closed", e);
            closeAll();
        }
    }

    private void select(long nowMillis) throws IOException {
        long start = System.nanoTime();
        selecting.set(true);
        if (!tasks.isEmpty() || !deferred.isEmpty()) {
            selecting.set(false);
            selector.selectNow(readyCollector);
        } else {
            long timeout = contended.isEmpty() ? Math.max(1, nextSweepMillis - nowMillis) : 1;
            selector.select(readyCollector, timeout);
            selecting.set(false);
        }
        long end = System.nanoTime();
        lastRoundNanos = start - lastSelectEndNanos;
        if (readyOrder.sortIfBackedUp(ready, lastRoundNanos)) {
            counters.reorderedBatches.increment();
        }
        readyOrder.waitersFirst(ready, waitersCollected);
        waitersCollected = 0;
        if (shares != null) {
            runMix.roundEnds(end);
            shares.roundBegins(ready.size());
        }
        // A select that waited found connections that became ready while it waited; one that returned at once may
        // report connections that were ready since the previous select ended (a long run held the loop meanwhile).
        readySinceNanos = end - start > WAITED_IN_SELECT_NANOS ? start : lastSelectEndNanos;
        lastSelectEndNanos = end;
    }

    private void collectReady(SelectionKey key) {
        ready.addLast(key);
        if (((LoopChannel) key.attachment()).lastRunWaitedOffLoop()) {
            waitersCollected++;
        }
    }

    private void takeOver(LoopThread me) {
        leaderlessSinceNanos = 0;
        leader = me;
        me.led(this);
        long v = runSeq.get();
        if ((v & HANDED_OFF) != 0) {
            // The previous leader is still inside the request that blocked it. Its connection must not be
            // reported ready to us meanwhile; it re-arms through submit() when the request ends.
            LoopChannel stuck = current;
            current = null;
            runSeq.set((v & ~HANDED_OFF) + 1);
            if (stuck != null) {
                stuck.suspendInterest();
            }
        }
    }

    private boolean runTasks() {
        LoopTask task;
        while ((task = tasks.poll()) != null) {
            boolean leading;
            try {
                leading = task.run();
            } catch (Throwable t) {
                // One failed task (a registration, a re-arm, a dispatch) must not end the loop for every connection.
                log.error("A task failed on event loop " + id + "; the loop goes on", t);
                leading = endRunAfterFailure();
            }
            if (!leading) {
                return false;
            }
        }
        return true;
    }

    /**
     * Queues work that a connection's run handed to the executor (Tomcat's HTTP/2 streams) to run on this thread once
     * the ready connections are served: no wake-up of another thread and no context switch per stream. Each runs as a
     * run of its own, so a stream that blocks (flow control, a slow client, a servlet that sleeps) moves the loop to
     * another thread like any request. Called by the leader; safe if it loses the loop meanwhile.
     */
    public void defer(Runnable task) {
        deferred.addLast(task);
        if (!inLoop()) {
            // The caller lost the loop between its check and the add (a hand-off while its run went on): the new
            // leader may already be selecting. Either it sees the task, or this sees it lead and wakes it.
            selector.wakeup();
        }
    }

    private boolean runDeferred() {
        Runnable task;
        while ((task = deferred.pollFirst()) != null) {
            counters.deferredTasks.increment();
            long seq = beginRun(null);
            try {
                task.run();
            } catch (Throwable t) {
                log.error("Deferred task failed on event loop " + id, t);
            }
            if (!endRun(seq)) {
                return false;
            }
        }
        return true;
    }

    private boolean drainReady() {
        SelectionKey key;
        while ((key = ready.pollFirst()) != null) {
            if (!key.isValid()) {
                continue;
            }
            LoopChannel channel = (LoopChannel) key.attachment();
            if (shares != null && shares.sitsOut(channel, key.readyOps())) {
                counters.roundsSatOut.increment();
                continue;
            }
            channel.servedAs(++served);
            boolean leading;
            try {
                leading = channel.onReady(key.readyOps());
            } catch (Throwable t) {
                // A failure of our own (a key cancelled by a concurrent close, a bug): close that connection only.
                log.error("A connection failed on event loop " + id + "; it is closed, the loop goes on", t);
                leading = endRunAfterFailure();
                closeQuietly(channel);
            }
            if (!leading) {
                return false;
            }
        }
        return true;
    }

    /**
     * Ends the run a failure left open, if the calling thread still leads the loop.
     *
     * @return whether the calling thread still leads the loop
     */
    private boolean endRunAfterFailure() {
        if (!inLoop()) {
            return false;
        }
        long v = runSeq.get();
        if ((v & 1) == 1 && (v & HANDED_OFF) == 0) {
            endRun(v);
        }
        return inLoop();
    }

    private static void closeQuietly(LoopChannel channel) {
        try {
            channel.closeOnStop();
        } catch (Throwable t) {
            log.debug("Close after a failure failed", t);
        }
    }

    /**
     * Remembers a connection that was ready while another thread held it (its interest is suspended meanwhile),
     * so that its interest is restored as soon as that thread lets go. Leader only; rare, hence the 1 ms poll.
     */
    public void retryWhenFree(LoopChannel channel) {
        if (!contended.contains(channel)) {
            contended.addLast(channel);
        }
    }

    private void retryContended() {
        for (int i = contended.size(); i > 0; i--) {
            LoopChannel channel = contended.pollFirst();
            if (!channel.resumeIfFree()) {
                contended.addLast(channel);
            }
        }
    }

    /**
     * Gives the leader a chore to run once a second, with the timeout sweep: a loop always has a leader, and wakes
     * for the sweep even when idle, so no thread of its own is needed for it. Call before the loop starts.
     */
    public void setHousekeeping(Runnable chore) {
        housekeeping = chore;
    }

    private boolean sweepTimeouts(long now) {
        for (SelectionKey key : selector.keys().toArray(new SelectionKey[0])) {
            if (key.isValid() && !((LoopChannel) key.attachment()).checkTimeout(now)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Marks the start of inline work for a connection. Leader only.
     *
     * @return the run's sequence number, to pass to {@link #endRun}
     */
    public long beginRun(LoopChannel channel) {
        counters.inlineRuns.increment();
        long now = System.nanoTime();
        if (channel != null) {
            waits.record(now - readySinceNanos);
        }
        long seq = runSeq.get() + 1;
        current = channel;
        runStartNanos = now;
        waitingAtRunStart = ready.size();
        runSeq.set(seq);
        if (detector != null) {
            detector.activity();
        }
        return seq;
    }

    /**
     * Marks the end of inline work.
     *
     * @return {@code true} if the calling thread still leads the loop; {@code false} if the loop was handed to
     *         another thread while the work ran
     */
    public boolean endRun(long seq) {
        if (runSeq.compareAndSet(seq, seq + 1)) {
            LoopChannel ran = current;
            current = null;
            if (handOffs) {
                long now = System.nanoTime();
                long took = now - runStartNanos;
                if (ran != null) {
                    shares.ran(ran, took);
                }
                if (took >= HandOffPolicy.MIN_LIMIT_NANOS) {
                    noteLongRun(now);
                } else {
                    runMix.ranInline(took, now);
                }
            }
            return true;
        }
        return false;
    }

    /**
     * A run held the loop for the least limit or more (rare: the fast path only compares): from now on the detector
     * looks at each run when it reaches its share of the budget, for a while. Not when a collection ran since the
     * last such run: a pause stretches every run it falls in, and a young collection comes every second or two at
     * high request rates. Leader only.
     */
    private void noteLongRun(long now) {
        long gc = ThreadTimes.gcMillis();
        if (gc == gcMillisAtLongRun) {
            lastLongRunNanos = now;
        }
        gcMillisAtLongRun = gc;
    }

    /**
     * A request of one of this loop's connections ran on a pool thread for {@code ranNanos}, ending at {@code now}: if
     * under {@link HandOffPolicy#MIN_LIMIT_NANOS}, it is a light run, as {@link #endRun} notes one inline. Any thread;
     * at most one opaque store.
     */
    public void ranOffLoop(long ranNanos, long now) {
        runMix.ranOffLoop(ranNanos, now);
    }

    /** @return what this loop's runs under the least limit looked like lately. Read by the stall detector. */
    RunMix runMix() {
        return runMix;
    }

    /** @return when a run last held this loop for the least limit or more, or was moved away; 0: never */
    long lastLongRunNanos() {
        return lastLongRunNanos;
    }

    /** The detector moved a run that held this loop past its limit. Detector only. */
    void movedLongRun(long now) {
        lastLongRunNanos = now;
    }

    /**
     * Gives the loop to another thread because the caller, its leader, is about to wait for its socket. Pays for the
     * thread switch only now that the request really blocks. No-op when the caller is not the leader inside a run.
     */
    public void handOffIfLeader() {
        LoopThread.waitsForItsSocket();
        handOffSelf(Moment.SOCKET_WAIT);
    }

    /**
     * Gives the loop to another thread before a request whose class held loops before (it blocked, or computed past
     * the budget), so that the loop's other connections do not wait for the stall detector to notice. Called by the
     * leader at the start of the request.
     */
    public void handOffBeforeRunning() {
        handOffSelf(Moment.LONG_CLASS_STARTS);
    }

    private void handOffSelf(Moment moment) {
        if (!handOffs || !inLoop()) {
            return;
        }
        long v = runSeq.get();
        if ((v & 1) == 1 && (v & HANDED_OFF) == 0) {
            Decision why = detector.policy().decide(moment, 0, HandOffPolicy.Activity.RUNNING, true);
            if (why != Decision.STAY) {
                handOff(v, why);
            }
        }
    }

    /**
     * Moves the loop away from the run {@code seq}, if that run still holds it. Called by the run's leader or by the
     * stall detector.
     *
     * @return {@code true} if this call moved the loop
     */
    boolean handOff(long seq, Decision why) {
        // Marked before the move: once moved, the request may end and its thread mark itself back at any moment.
        LoopThread from = leader;
        if (from != null) {
            from.movedBecause(why);
            from.offLoop(true);
        }
        if (!runSeq.compareAndSet(seq, seq | HANDED_OFF)) {
            if (from != null) {
                from.offLoop(false); // the run ended first: its thread still leads the loop
            }
            return false;
        }
        counters.handedOff(why);
        transfer();
        return true;
    }

    /** @return how long a run may hold this loop while others may wait ({@code blockedHandOffMillis}) */
    public long handOffBudgetNanos() {
        return detector == null ? Long.MAX_VALUE : detector.policy().budgetNanos();
    }

    /**
     * @return how long the run in progress may hold this loop before the detector moves it: the budget shared with the
     *         connections ready behind it ({@link HandOffPolicy#limitNanos}). Leader only, before it hands the loop off.
     */
    public long runLimitNanos() {
        return detector == null ? Long.MAX_VALUE : detector.policy().limitNanos(waitingAtRunStart);
    }

    // ------------------------------------------------------------------ what the stall detector reads

    /** @return the run word: odd inside a run, with {@link #HANDED_OFF} once the run lost the loop */
    long runSeq() {
        return runSeq.get();
    }

    /** @return when the run published by the {@link #runSeq} just read began (valid until the next run) */
    long runStartNanos() {
        return runStartNanos;
    }

    /**
     * @return how many ready connections were waiting behind the run just read when it began (valid until the next
     *         run); the stall detector shortens the run's budget by it
     */
    int waitingAtRunStart() {
        return waitingAtRunStart;
    }

    /** @return the connection of the run just read, or {@code null} for a deferred task (an HTTP/2 stream) */
    LoopChannel currentChannel() {
        return current;
    }

    LoopThread leader() {
        return leader;
    }

    /**
     * @return whether anyone else may be waiting for this loop while a run holds it: another connection, a task
     *         from another thread, or, when the run is a deferred HTTP/2 stream, the other streams
     */
    boolean othersMayWait() {
        return connectionCount.get() > 1 || !tasks.isEmpty() || current == null;
    }

    boolean isInRun() {
        return (runSeq.get() & 1) == 1;
    }

    /** @return since when this loop has waited for a thread ({@code threads} all busy), or 0 */
    long leaderlessSinceNanos() {
        return leaderlessSinceNanos;
    }

    private void transfer() {
        leader = null;
        if (!pool.promote(this)) {
            leaderlessSinceNanos = System.nanoTime();
            counters.leaderlessHandOffs.increment();
        }
    }

    /** Stops the loop: the leader closes every connection and the selector. Any thread. */
    public void stop() {
        running = false;
        selector.wakeup();
    }

    private void closeAll() {
        for (SelectionKey key : selector.keys().toArray(new SelectionKey[0])) {
            try {
                ((LoopChannel) key.attachment()).closeOnStop();
            } catch (RuntimeException e) {
                log.debug("Close on stop failed", e);
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            log.debug("Selector close failed", e);
        }
    }

    /** Closes the selector if no leader did (the loop was leaderless when the connector stopped). */
    public void closeSelectorIfOpen() {
        if (selector.isOpen()) {
            try {
                selector.close();
            } catch (IOException e) {
                log.debug("Selector close failed", e);
            }
        }
    }

    @Override
    public String toString() {
        LoopThread l = leader;
        return "EventLoop[" + id + ", leader=" + (l == null ? "none" : l.getName()) + ", connections=" +
                connectionCount.get() + ", runSeq=" + runSeq.get() + "]";
    }
}
