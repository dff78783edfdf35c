package io.hybridconnector.loop;

import java.io.IOException;
import java.lang.management.ThreadMXBean;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

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
 *                            by the StallDetector (request stuck)     it lost the loop, finishes its request
 *                            or by the leader itself (about to wait    and parks; the next leader sets
 *                            for its socket)                           (odd &amp; ~HANDED_OFF) + 1 and goes on
 * </pre>
 *
 * Thread use: {@link #lead} runs on the leader only. {@link #submit}, {@link #wakeup} and {@link #stop} are for any
 * thread. {@link #handOffIfLeader} is called by the leader itself; {@link #checkStall} by the stall detector.
 */
public final class EventLoop {

    private static final Log log = LogFactory.getLog(EventLoop.class);

    /** {@link #checkStall} results. */
    static final int NOT_IN_RUN = 0;
    static final int IN_RUN = 1;
    static final int MOVED = 2;

    /** Set in {@link #runSeq} when the leader running the current request lost the loop. */
    static final long HANDED_OFF = 1L << 62;

    /** How often idle and partially received connections are checked for timeouts. */
    private static final long SWEEP_INTERVAL_MILLIS = 1000;

    private final int id;
    private final Selector selector;
    private final LoopThreadPool pool;
    private final LoopCounters counters;
    private final StallDetector detector;
    /** {@code false} under {@link ThreadModel#SINGLE}: the leader keeps its loop whatever it waits for. */
    private final boolean handOffs;

    /** Keys reported ready and not yet handled. Leader only; a new leader continues where the old one stopped. */
    private final ArrayDeque<SelectionKey> ready = new ArrayDeque<>();
    private final Consumer<SelectionKey> readyCollector = ready::addLast;
    /** Work from other threads: registrations, re-arms after a blocked request, async dispatches. */
    private final ConcurrentLinkedQueue<LoopTask> tasks = new ConcurrentLinkedQueue<>();
    /** Connections found locked by another thread when ready; re-armed once free. Leader only. */
    private final ArrayDeque<LoopChannel> contended = new ArrayDeque<>();
    /**
     * Work a leader gave to "an executor" while it ran a connection (HTTP/2 streams), run by the leader right after
     * the ready connections instead of waking another thread for each. Leader only; a new leader runs what is left.
     */
    private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();

    private final AtomicLong runSeq = new AtomicLong();
    /** The connection the leader is running; written before the odd {@link #runSeq} that publishes it. */
    private LoopChannel current;
    private volatile LoopThread leader;
    private volatile boolean running = true;
    /** Why the stall detector last moved the loop; see {@link #movedForComputing()}. */
    private volatile boolean movedForComputing;

    private final AtomicInteger connectionCount = new AtomicInteger();
    private long nextSweepMillis;

    /** Detector-only state: the odd runSeq seen on its previous tick and for how many ticks it stayed. */
    private long lastSeenSeq;
    private int stuckTicks;
    private long lastSeenNanos;
    private long lastSeenCpuNanos;

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

    /**
     * Registers a channel with this loop's selector. Leader only (call it from a {@link #submit submitted} task).
     */
    public SelectionKey register(SelectableChannel channel, int ops, LoopChannel attachment) throws IOException {
        SelectionKey key = channel.register(selector, ops, attachment);
        connectionCount.incrementAndGet();
        return key;
    }

    /**
     * Registers a listening socket (loops that accept for themselves); not counted as a connection. Leader only.
     */
    public SelectionKey registerListener(SelectableChannel channel, int ops, LoopChannel attachment)
            throws IOException {
        return channel.register(selector, ops, attachment);
    }

    /** Called once when a registered connection closes. Any thread. */
    public void deregistered() {
        connectionCount.decrementAndGet();
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
            selector.wakeup();
        }
    }

    /** Wakes the selector so that closes and interest changes made by another thread take effect now. */
    public void wakeup() {
        selector.wakeup();
    }

    /** Leads the loop until the calling thread loses it (a request blocked) or the loop stops. */
    void lead(LoopThread me) {
        takeOver(me);
        try {
            while (running) {
                if (!runTasks() || !drainReady() || !runDeferred()) {
                    return;
                }
                long now = System.currentTimeMillis();
                if (now >= nextSweepMillis) {
                    nextSweepMillis = now + SWEEP_INTERVAL_MILLIS;
                    if (!sweepTimeouts(now)) {
                        return;
                    }
                }
                retryContended();
                if (!tasks.isEmpty() || !deferred.isEmpty()) {
                    selector.selectNow(readyCollector);
                } else {
                    long timeout = contended.isEmpty() ? Math.max(1, nextSweepMillis - now) : 1;
                    selector.select(readyCollector, timeout);
                }
            }
            closeAll();
        } catch (ClosedSelectorException e) {
            // Stopped while selecting.
        } catch (IOException e) {
            log.error("Event loop " + id + " failed; its connections are closed", e);
            closeAll();
        }
    }

    private void takeOver(LoopThread me) {
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
            if (!task.run()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Queues work that a connection's run handed to the executor (Tomcat's HTTP/2 streams) to run on this thread once
     * the ready connections are served: no wake-up of another thread and no context switch per stream. Each runs as a
     * run of its own, so a stream that blocks (flow control, a slow client, a servlet that sleeps) moves the loop to
     * another thread like any request. Leader only.
     */
    public void defer(Runnable task) {
        deferred.addLast(task);
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
            if (key.isValid() && !((LoopChannel) key.attachment()).onReady(key.readyOps())) {
                return false;
            }
        }
        return true;
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
        long seq = runSeq.get() + 1;
        current = channel;
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
            current = null;
            return true;
        }
        return false;
    }

    /**
     * Gives the loop to another thread because the caller, its leader, is about to wait for its socket. Pays for the
     * thread switch only now that the request really blocks. No-op when the caller is not the leader inside a run.
     */
    public void handOffIfLeader() {
        if (handOff()) {
            counters.ioHandOffs.increment();
        }
    }

    /**
     * Gives the loop to another thread before a request that is known to block (its class blocked before), so that
     * the loop does not wait for the stall detector to notice. Called by the leader at the start of the request.
     */
    public void handOffBeforeBlocking() {
        if (handOff()) {
            counters.predictedHandOffs.increment();
        }
    }

    private boolean handOff() {
        if (!handOffs || !inLoop()) {
            return false;
        }
        long v = runSeq.get();
        if ((v & 1) == 1 && (v & HANDED_OFF) == 0 && runSeq.compareAndSet(v, v | HANDED_OFF)) {
            movedForComputing = false;
            transfer();
            return true;
        }
        return false;
    }

    /**
     * One tick of the stall detector: hands the loop off if the same request has held the leader since the
     * previous tick and the leader is not computing: it waits for a lock or a sleep, or it is blocked in the kernel
     * (a JDBC socket read shows as RUNNABLE but burns no CPU). A request that computes keeps the loop for
     * {@code runnableTicks} ticks before it is moved. On Linux the kernel's thread state decides "blocked in the kernel";
     * elsewhere the thread's CPU time does.
     *
     * @return {@link #NOT_IN_RUN}, {@link #IN_RUN}, or {@link #MOVED} if this tick moved the loop
     */
    int checkStall(int runnableTicks, ThreadMXBean threads) {
        long v = runSeq.get();
        if ((v & 1) == 0 || (v & HANDED_OFF) != 0) {
            stuckTicks = 0;
            return NOT_IN_RUN;
        }
        LoopThread l = leader;
        if (v != lastSeenSeq || l == null) {
            lastSeenSeq = v;
            stuckTicks = 0;
            lastSeenNanos = System.nanoTime();
            lastSeenCpuNanos = l == null ? -1 : threads.getThreadCpuTime(l.getId());
            // Already parked in a sleep, a lock or a wait: it has blocked, move the loop now rather than a tick later.
            // (Not for a thread asleep in the kernel: at one glance that may be a GC safepoint.)
            if (l != null && javaWaiting(l) && runSeq.compareAndSet(v, v | HANDED_OFF)) {
                counters.stallHandOffs.increment();
                movedForComputing = false;
                transfer();
                return MOVED;
            }
            return IN_RUN;
        }
        stuckTicks++;
        boolean waiting = javaWaiting(l);
        if (!waiting) {
            int kernel = KernelThreadState.sleepingInKernel(l.tid());
            if (kernel >= 0) {
                // Blocked in a system call (a JDBC socket read shows as RUNNABLE to Java).
                waiting = kernel == 1;
            } else if (lastSeenCpuNanos >= 0) {
                // No /proc: less than a quarter of the wall time on the CPU counts as blocked in a system call.
                long cpu = threads.getThreadCpuTime(l.getId());
                long wall = System.nanoTime() - lastSeenNanos;
                waiting = cpu >= 0 && (cpu - lastSeenCpuNanos) * 4 < wall;
            }
        }
        if ((waiting || stuckTicks >= runnableTicks) && runSeq.compareAndSet(v, v | HANDED_OFF)) {
            counters.stallHandOffs.increment();
            movedForComputing = !waiting;
            transfer();
            return MOVED;
        }
        return IN_RUN;
    }

    private static boolean javaWaiting(Thread t) {
        Thread.State state = t.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }

    boolean isInRun() {
        return (runSeq.get() & 1) == 1;
    }

    /**
     * @return {@code true} if the last move of this loop was because its leader computed for too long, not because
     *         it waited: such a request did not block, and must not teach the classifier that its class does
     */
    public boolean movedForComputing() {
        return movedForComputing;
    }

    private void transfer() {
        leader = null;
        if (!pool.promote(this)) {
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
