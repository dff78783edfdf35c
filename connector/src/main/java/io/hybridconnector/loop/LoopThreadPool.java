package io.hybridconnector.loop;

import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.threads.ResizableExecutor;

/**
 * The threads of one connector, bounded by {@code threads}. One thread leads each {@link EventLoop}; the others are
 * either finishing a request that blocked (after handing its loop to a fresh leader) or parked, holding nothing.
 * <p>
 * Any thread may call. Every method that moves work between threads runs under one lock: they are the slow path
 * (a hand-off happens only when a request blocks), and one lock keeps "no idle thread while a loop has no leader"
 * easy to see. The fast path never enters this class.
 * <p>
 * It is also the endpoint's {@link java.util.concurrent.Executor} (Tomcat's {@code ThreadPool} MBean reads its
 * counts through {@link ResizableExecutor}); tasks submitted that way run on the same threads, unless the operator
 * gave an executor of their own ({@code executor="..."}, {@code useVirtualThreads="true"}, Spring Boot's virtual
 * threads): then tasks run there, as on stock NIO, and this pool's threads only lead loops and finish the requests
 * that blocked on them.
 */
public final class LoopThreadPool implements ResizableExecutor {

    private static final Log log = LogFactory.getLog(LoopThreadPool.class);

    /** How long a parked thread above the loop count lives before it exits, by default: 60 s, as Tomcat's pool. */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** How long a parked thread lives before it exits ({@link #IDLE_NANOS}; tests shorten it). */
    private volatile long idleNanos = IDLE_NANOS;

    private final String namePrefix;
    private final boolean daemon;
    private volatile int maxThreads;
    /**
     * Whether the stall detector last saw a request computing off the loops ({@link TimeSlicing#look}): the loops'
     * runs then share the CPUs with it and are stretched by its slices, so a run's length says little about the
     * request ({@link RoundShares}). Written by the detector, read by leaders on their slow path.
     */
    private volatile boolean computingBesideLoops;

    private final Object lock = new Object();
    /** Parked threads, most recently parked first (warm caches). Guarded by {@link #lock}. */
    private final ArrayDeque<LoopThread> idle = new ArrayDeque<>();
    /** Loops whose leader blocked when no thread was left to take over. Guarded by {@link #lock}. */
    private final ArrayDeque<EventLoop> leaderless = new ArrayDeque<>();
    /** Executor tasks waiting for a thread. Guarded by {@link #lock}. */
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    /** Ready connections handed to threads in turn ({@link #executeInTurn}), waiting for one. Guarded by {@link #lock}. */
    private final Turns turns = new Turns();
    /** Threads woken for a turn that have not started it yet. Guarded by {@link #lock}. */
    private int wakingForTurns;
    /** Guarded by {@link #lock}. */
    private int threadCount;
    private int nextThreadId;

    private final Set<LoopThread> all = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    /** The loops this pool leads, from {@link #start}; their leaders are renewed by {@link #renewThreads}. */
    private volatile EventLoop[] loops = new EventLoop[0];
    /**
     * Bumped by {@link #renewThreads}; a thread made before the last bump ({@link LoopThread#generation}) ends after
     * its current work. Written under {@link #lock}; read by a leader in its renewal task.
     */
    private volatile int generation;
    /** Handed to a parked thread that must end: the pool renews its threads. */
    private static final Object RETIRE = new Object();

    /** What {@link #tomcatView()} returns: Tomcat's executor type, so that its leak listener reaches this pool. */
    private final TomcatExecutorView tomcatView;

    /** The operator's executor for tasks, or {@code null}: tasks run on this pool's threads. */
    private final Executor taskExecutor;
    /** Tasks running on {@link #taskExecutor} right now. */
    private final AtomicInteger externalTasksRunning = new AtomicInteger();

    public LoopThreadPool(String namePrefix, int maxThreads, boolean daemon) {
        this(namePrefix, maxThreads, daemon, null);
    }

    /**
     * @param taskExecutor where tasks ({@link #execute}) run; {@code null}: on this pool's threads, within
     *                     {@code maxThreads}
     */
    public LoopThreadPool(String namePrefix, int maxThreads, boolean daemon, Executor taskExecutor) {
        this.namePrefix = namePrefix;
        this.maxThreads = maxThreads;
        this.daemon = daemon;
        this.taskExecutor = taskExecutor;
        this.tomcatView = new TomcatExecutorView(this);
    }

    /**
     * @return this pool as Tomcat's own {@code ThreadPoolExecutor} type: what the protocol's {@code getExecutor()}
     *         returns, because that type is what Tomcat's {@code ThreadLocalLeakPreventionListener} looks for
     */
    public TomcatExecutorView tomcatView() {
        return tomcatView;
    }

    /** @return the operator's executor for tasks, or {@code null} */
    Executor taskExecutor() {
        return taskExecutor;
    }

    boolean isDaemon() {
        return daemon;
    }

    boolean isStopped() {
        return stopped;
    }

    /** Starts one leader per loop. */
    public void start(EventLoop[] loops) {
        this.loops = loops.clone();
        synchronized (lock) {
            for (EventLoop loop : loops) {
                spawn(loop);
            }
        }
    }

    /**
     * Finds a thread to lead {@code loop}, whose leader just blocked.
     *
     * @return {@code false} when {@code threads} are all busy; the loop then waits for the first thread to free up
     */
    boolean promote(EventLoop loop) {
        LoopThread t;
        synchronized (lock) {
            t = idle.pollFirst();
            if (t != null) {
                t.hand(loop);
            } else if (threadCount < maxThreads && !stopped) {
                spawn(loop);
                return true;
            } else {
                leaderless.addLast(loop);
                return false;
            }
        }
        t.wake();
        return true;
    }

    @Override
    public void execute(Runnable task) {
        if (stopped) {
            throw new RejectedExecutionException("connector threads are stopped");
        }
        if (taskExecutor != null) {
            taskExecutor.execute(() -> runExternally(task));
            return;
        }
        LoopThread t;
        synchronized (lock) {
            t = idle.pollFirst();
            if (t != null) {
                t.hand(task);
            } else if (threadCount < maxThreads) {
                spawn(task);
            } else {
                tasks.addLast(task);
            }
        }
        if (t != null) {
            t.wake();
        }
    }

    /**
     * Runs {@code turn} (a ready connection served on a pool thread while {@link TimeSlicing} is on) the way stock
     * NIO's workers take requests from their queue: one thread is woken at a time, and it wakes the next when it
     * starts, if more turns wait; a thread that finishes takes the next turn without parking. So the ready connections
     * a loop hands over at once do not become as many runnable threads at once, each of which the kernel would give a
     * share of the CPU (handed to as many threads at once, beside 2 requests computing 20 ms on one core, the computing
     * ones got 0.50x stock's throughput), but a chain as long as the threads get to run. More threads at once made
     * the light requests slower, not faster: over eight one-core cells of the fairness map, two maps each, one thread
     * per turn met the bounds in 0 of 16 cells, as many at once as requests computed in 6, this chain in 10
     * (2026-12-07, {@code bench/fairness-map/results/2026-12-07-full-grid}). Which turn goes first:
     * {@link Turns}. With an operator's executor, as {@link #execute}.
     *
     * @param lastRunNanos how long the connection's last request ran, 0 if it ran inline and kept its loop ({@link
     *                     Turns}: from 1 ms it waits behind light ones for at most that long for each turn
     *                     queued ahead of it)
     */
    public void executeInTurn(Runnable turn, long lastRunNanos) {
        if (taskExecutor != null || stopped) {
            execute(turn);
            return;
        }
        LoopThread woken = null;
        synchronized (lock) {
            turns.add(turn, lastRunNanos, maxThreads);
            if (wakingForTurns == 0) {
                woken = handTurn();
            }
        }
        wake(woken);
    }

    /**
     * Guarded by {@link #lock}: hands the next turn to a parked thread, which the caller wakes once it released the
     * lock ({@link LoopThread#hand}), or starts a thread for it. With every thread busy the turns wait, and a thread
     * that finishes its work takes the next ({@link #nextWork}).
     *
     * @return the parked thread to wake, or {@code null}
     */
    private LoopThread handTurn() {
        if (turns.isEmpty()) {
            return null;
        }
        LoopThread t = idle.pollFirst();
        if (t == null && (threadCount >= maxThreads || stopped)) {
            return null;
        }
        WokenTurn woken = new WokenTurn(turns.poll());
        wakingForTurns++;
        if (t != null) {
            t.hand(woken);
        } else {
            spawn(woken);
        }
        return t;
    }

    private static void wake(LoopThread t) {
        if (t != null) {
            t.wake();
        }
    }

    /** A turn given to a thread woken for it: once running, it wakes the next thread if more turns wait. */
    private final class WokenTurn implements Runnable {
        private final Runnable turn;

        WokenTurn(Runnable turn) {
            this.turn = turn;
        }

        @Override
        public void run() {
            LoopThread next = null;
            synchronized (lock) {
                wakingForTurns--;
                if (wakingForTurns == 0) {
                    next = handTurn();
                }
            }
            wake(next);
            turn.run();
        }
    }

    /**
     * The next work for a thread that finished its loop or task; parks when there is none.
     *
     * @return the work, or {@code null} when the thread should exit
     */
    Object nextWork(LoopThread t) {
        synchronized (lock) {
            if (stopped) {
                return null;
            }
            if (t.generation() != generation) {
                // Made before a web application stopped: it may hold that application's thread locals. It ends,
                // and the work waiting for a thread goes to a new one, as it would have gone to this one.
                spawnForWaitingWork();
                return null;
            }
            EventLoop loop = leaderless.pollFirst();
            if (loop != null) {
                return loop;
            }
            Runnable task = tasks.pollFirst();
            if (task != null) {
                return task;
            }
            task = turns.poll();
            if (task != null) {
                return task;
            }
            idle.addFirst(t);
        }
        Object work = t.awaitAssignment(idleNanos);
        if (work == null) {
            synchronized (lock) {
                if (idle.remove(t)) {
                    return null;
                }
            }
            // Someone took this thread off the idle stack concurrently: its assignment is on the way.
            work = t.awaitAssignment(Long.MAX_VALUE);
        }
        return work == RETIRE ? null : work;
    }

    /**
     * Called by a thread that ends after its work instead of taking more ({@link LoopThread#retireAfterWork}): a
     * leaderless loop or a task that waited for a thread goes to a new one, as it would have gone to this one.
     *
     * @return {@code null}: no more work for the caller
     */
    Object retire() {
        synchronized (lock) {
            if (!stopped) {
                spawnForWaitingWork();
            }
        }
        return null;
    }

    /** Guarded by {@link #lock}: the caller ends; a leaderless loop or a waiting task goes to a new thread. */
    private void spawnForWaitingWork() {
        Object waiting = leaderless.pollFirst();
        if (waiting == null) {
            waiting = tasks.pollFirst();
        }
        if (waiting == null) {
            waiting = turns.poll();
        }
        if (waiting != null) {
            spawn(waiting); // one over `threads` until the caller's exit, a moment later
        }
    }

    /**
     * Replaces every thread of this pool, as Tomcat's {@code ThreadPoolExecutor.contextStopping} does for stock NIO's
     * workers: a web application that stopped may have left thread locals (holding its class loader) on any thread
     * that ran its requests, and only the thread's end releases them. Called on Tomcat's lifecycle thread, by its
     * {@code ThreadLocalLeakPreventionListener} after a context stopped ({@link TomcatExecutorView#contextStopping}).
     * <ul>
     * <li>parked threads end now;</li>
     * <li>each loop's leader gets a task: between two runs it hands its loop to a new thread and ends
     * ({@link #renewLeader}), so no connection waits longer than one run for the new leader, and none is closed;</li>
     * <li>a thread inside a request (the rest of a request whose loop moved, a task) ends after it
     * ({@link #nextWork}).</li>
     * </ul>
     * So every thread is replaced within the longest request running at the call. Stock spaces the ends of its
     * threads by {@code threadRenewalDelay} (1 s); here there are a few threads (one per loop plus those parked), so
     * all go at once. Nothing is added to the fast path: the check runs where a thread looks for more work, which a
     * leader serving inline never does.
     */
    public void renewThreads() {
        EventLoop[] led;
        int parked;
        synchronized (lock) {
            if (stopped) {
                return;
            }
            generation++;
            parked = idle.size();
            for (LoopThread t : idle) {
                t.assign(RETIRE);
            }
            idle.clear();
            led = loops;
        }
        for (EventLoop loop : led) {
            loop.submit(() -> renewLeader(loop));
        }
        if (log.isDebugEnabled()) {
            log.debug("Renewing the threads of " + namePrefix + " after a web application stopped: " + parked +
                    " parked ended, " + led.length + " loop leaders replaced between runs, " +
                    (getPoolSize() - parked - led.length) + " others after their request");
        }
    }

    /**
     * A loop task, on {@code loop}'s leader between two runs: a leader made before the last {@link #renewThreads}
     * gives its loop to a new thread (or, with {@code threads} all busy, to the first one free) and ends.
     *
     * @return {@code false} if the caller gave the loop away (the loop's task contract)
     */
    private boolean renewLeader(EventLoop loop) {
        LoopThread me = LoopThread.current();
        if (me == null || me.generation() == generation || stopped) {
            return true; // a new thread already leads it
        }
        me.retireAfterWork();
        // The caller touches the loop no more once this task returns false, so the new leader may start at once.
        // Parked threads are all of the current generation: renewThreads ended the others, and nextWork parks none.
        promote(loop);
        return false;
    }

    void runTask(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            log.error("Task failed on connector thread " + Thread.currentThread().getName(), t);
        }
    }

    private void runExternally(Runnable task) {
        externalTasksRunning.incrementAndGet();
        try {
            runTask(task);
        } finally {
            externalTasksRunning.decrementAndGet();
        }
    }

    /** @return {@code true} if tasks run on an executor the operator gave, not on this pool's threads */
    public boolean hasTaskExecutor() {
        return taskExecutor != null;
    }

    /** @return tasks running on the operator's executor right now (0 without one) */
    public int getExternalTasksRunning() {
        return externalTasksRunning.get();
    }

    /** @return whether the stall detector last saw a request computing off the loops */
    boolean computingBesideLoops() {
        return computingBesideLoops;
    }

    /** Stall detector only ({@link TimeSlicing#look}). */
    void computingBesideLoops(boolean computing) {
        if (computingBesideLoops != computing) {
            computingBesideLoops = computing;
        }
    }

    /**
     * @return threads of this pool working off the loops right now: a task, or the rest of a request whose loop moved
     *         away (a loop's leader inside a run is not counted here; see {@link EventLoop#isLeaderInRun()})
     */
    public int getOffLoopCount() {
        int n = 0;
        for (LoopThread t : all) {
            if (t.offLoopSince() != 0) {
                n++;
            }
        }
        return n;
    }

    /** @return every thread of the pool, for the stall detector's looks (weakly consistent) */
    Iterable<LoopThread> threads() {
        return all;
    }

    void onExit(LoopThread t) {
        all.remove(t);
        synchronized (lock) {
            threadCount--;
            idle.remove(t);
        }
    }

    /**
     * Guarded by {@link #lock}. Often called from inside a request (a loop handed off by a servlet that blocked): the
     * thread is made by {@link ConnectorThreads}, so it keeps nothing of that request's web application.
     */
    private void spawn(Object work) {
        String name = namePrefix + "-worker-" + (nextThreadId++);
        int gen = generation;
        LoopThread t = ConnectorThreads.create(() -> new LoopThread(this, name, work, gen));
        threadCount++;
        all.add(t);
        t.start();
    }

    /**
     * Stops all threads: parked ones exit at once; busy ones (a request still running, a loop's leader) are
     * interrupted at once, as stock NIO's {@code shutdownNow} interrupts its workers, and then awaited for at most
     * {@code awaitMillis} ({@code executorTerminationTimeoutMillis}). Joining first made a stop with a 15 s request in
     * flight wait the whole 5 s before the interrupt (stock: 0.2 s).
     */
    public void stop(long awaitMillis) {
        stopped = true;
        synchronized (lock) {
            for (LoopThread t : idle) {
                t.assign(null);
            }
            idle.clear();
            leaderless.clear();
            tasks.clear();
            turns.clear();
        }
        for (LoopThread t : all) {
            if (t != Thread.currentThread()) {
                t.interrupt();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(awaitMillis);
        for (LoopThread t : all) {
            if (t == Thread.currentThread()) {
                continue;
            }
            try {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left > 0) {
                    t.join(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public void setMaxThreads(int maxThreads) {
        this.maxThreads = maxThreads;
    }

    /** How long a parked thread lives before it exits; applies from its next park. Default 60 s. */
    public void setIdleTimeout(long millis) {
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Override
    public int getMaxThreads() {
        return maxThreads;
    }

    @Override
    public int getPoolSize() {
        synchronized (lock) {
            return threadCount;
        }
    }

    @Override
    public int getActiveCount() {
        synchronized (lock) {
            return threadCount - idle.size();
        }
    }

    /** @return parked threads (holding no connection and no request). */
    public int getIdleCount() {
        synchronized (lock) {
            return idle.size();
        }
    }

    @Override
    public boolean resizePool(int corePoolSize, int maximumPoolSize) {
        setMaxThreads(maximumPoolSize);
        return true;
    }

    @Override
    public boolean resizeQueue(int capacity) {
        return false;
    }
}
