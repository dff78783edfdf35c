package io.hybridconnector.loop;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.hybridconnector.classify.ThreadTimes;

/**
 * A worker of a {@link LoopThreadPool}. At any moment it does exactly one of three things: it leads an
 * {@link EventLoop} (selects, reads, runs servlets and writes inline), it finishes a request whose loop it handed
 * over because the request blocked, or it runs a task submitted to the pool's executor view.
 * <p>
 * Runs on itself only; {@link #assign} is the one method other threads call.
 */
public final class LoopThread extends Thread {

    private final LoopThreadPool pool;

    /** The kernel's id of this thread (Linux), for the stall detector; -1 until known or where unknown. */
    private volatile int tid = -1;

    /**
     * Work handed to this thread while it was parked: an {@link EventLoop} to lead or a {@link Runnable}. Taken with
     * one atomic swap: a read followed by a clear would wipe out work handed over between the two (the thread then
     * parks for good, off the idle stack, and the work never runs).
     */
    private final AtomicReference<Object> assignment;

    /**
     * When the work this thread does off the loops began ({@code System.nanoTime()}): a task, or the rest of a request
     * whose loop moved away; 0 while it leads a loop or parks. Read by the stall detector ({@link TimeSlicing}).
     */
    private volatile long offLoopSince;
    /** Detector only ({@link TimeSlicing}): the {@link #offLoopSince} it saw last, and this thread's CPU time then. */
    long seenOffLoopSince;
    long cpuAtFirstSight;

    /**
     * The pool's thread generation when this thread was made ({@link LoopThreadPool#renewThreads}): a thread of an
     * older generation may hold what a web application stopped since left in its thread locals, and is replaced.
     */
    private final int generation;

    /** Through {@link ConnectorThreads#create} only: no inherited thread locals, the connector's class loader. */
    LoopThread(LoopThreadPool pool, String name, Object firstAssignment, int generation) {
        super(null, null, name, 0, false);
        this.pool = pool;
        this.assignment = new AtomicReference<>(firstAssignment);
        this.generation = generation;
        setDaemon(pool.isDaemon());
    }

    int generation() {
        return generation;
    }

    /**
     * Gives this parked thread its next piece of work and wakes it. Called under the pool's lock, once per park, where
     * waking it there costs nothing that matters (start, stop, renewal); the hot paths use {@link #hand} and {@link
     * #wake}.
     */
    void assign(Object work) {
        hand(work);
        wake();
    }

    /**
     * Gives this parked thread its next piece of work without waking it: under the pool's lock, which the caller
     * releases before {@link #wake}. Woken inside the lock, the thread was often run at once in the waker's place
     * (the kernel favours a thread that slept) and blocked on the lock the waker still held, until the waker got a
     * CPU again, behind every computing thread: the pattern of the selector's wake-up ({@code EventLoop.selecting}).
     */
    void hand(Object work) {
        assignment.set(work);
    }

    /** Wakes this thread for the work {@link #hand handed} to it. Any thread; not under the pool's lock. */
    void wake() {
        LockSupport.unpark(this);
    }

    /** @return the thread running the caller, if it is a loop thread. */
    public static LoopThread current() {
        Thread t = Thread.currentThread();
        return t instanceof LoopThread ? (LoopThread) t : null;
    }

    @Override
    public void run() {
        tid = KernelThreadState.currentTid();
        try {
            Object work = takeAssignment();
            while (work != null) {
                if (work instanceof EventLoop) {
                    ((EventLoop) work).lead(this);
                } else {
                    lastMove = HandOffPolicy.Decision.STAY; // a task, not the rest of a request that moved
                    offLoopSince = System.nanoTime();
                    pool.runTask((Runnable) work);
                }
                offLoopSince = 0;
                work = retiring ? pool.retire() : pool.nextWork(this);
            }
        } finally {
            closeOwned();
            ThreadTimes.releaseCallingThread();
            pool.onExit(this);
        }
    }

    /** Set by the thread itself: it ends once its current work is done. */
    private boolean retiring;

    /**
     * Ends this thread once its current work is done, instead of taking more (thread renewal: a thread that served a
     * stopped web application must not outlive it). Own thread only.
     */
    void retireAfterWork() {
        retiring = true;
    }

    /** What this thread owns until it exits (its socket waiter's selector). Own thread only. */
    private final List<Closeable> ownedUntilExit = new ArrayList<>(1);

    /**
     * Closes {@code resource} when this thread exits (the pool shrank, or the connector stopped): descriptors a thread
     * keeps for itself must not outlive it. Call on this thread only.
     */
    public void closeOnExit(Closeable resource) {
        ownedUntilExit.add(resource);
    }

    private void closeOwned() {
        for (Closeable resource : ownedUntilExit) {
            try {
                resource.close();
            } catch (IOException | RuntimeException e) {
                // Exiting anyway; nothing else to release it to.
            }
        }
        ownedUntilExit.clear();
    }

    /** The loop this thread led last; it still leads it if {@link EventLoop#inLoop()} says so. */
    private EventLoop lastLed;

    void led(EventLoop loop) {
        lastLed = loop;
    }

    /** @return the loop the calling thread leads right now, or {@code null} */
    public static EventLoop currentLoop() {
        LoopThread t = current();
        if (t == null) {
            return null;
        }
        EventLoop loop = t.lastLed;
        return loop != null && loop.inLoop() ? loop : null;
    }

    /** Counts runs down to the next one that is sampled. Own thread only. */
    private int untilSample;

    /**
     * @return {@code true} for one call in {@code every} on the calling loop thread (never on other threads)
     */
    public static boolean sampleThisRun(int every) {
        LoopThread t = current();
        if (t == null) {
            return false;
        }
        if (--t.untilSample > 0) {
            return false;
        }
        t.untilSample = every;
        return true;
    }

    /**
     * This thread, leading a loop inside a run, is about to lose the loop and go on with that request off the loop
     * ({@code true}); or the move failed because the run ended first ({@code false}). Called by whoever moves the loop
     * (the stall detector, or this thread).
     */
    void offLoop(boolean moving) {
        offLoopSince = moving ? System.nanoTime() : 0;
    }

    long offLoopSince() {
        return offLoopSince;
    }

    /**
     * Why the loop this thread led last moved away from its run; written by the mover before the move, read by this
     * thread once the run ends (after the move, which the run word orders).
     */
    private volatile HandOffPolicy.Decision lastMove = HandOffPolicy.Decision.STAY;

    /** This thread's CPU time when its run was moved as {@code STARVED} (read by the detector), else -1. */
    private volatile long cpuAtStarvedMove = -1;

    void movedBecause(HandOffPolicy.Decision why) {
        cpuAtStarvedMove = why == HandOffPolicy.Decision.STARVED ? ThreadTimes.cpuNanosOf(this) : -1;
        computingSinceMove = false;
        lastMove = why;
    }

    /** Set by {@link #computingRequest}{@code (true)} after the last move: the predicted class computes. */
    private volatile boolean computingSinceMove;

    /**
     * @return whether the calling thread's loop moved away from its run because the run waits (a sleep, a lock, a
     *         query, its own socket, or a class known to wait), not because it computes. Called by the run's thread
     *         once the run ended off its loop.
     */
    public static boolean lastRunWaited() {
        LoopThread t = current();
        if (t == null) {
            return false;
        }
        switch (t.lastMove) {
            case BLOCKED:
            case SOCKET_WAIT:
                return true;
            case PREDICTED:
                return !t.computingSinceMove;
            default:
                return false;
        }
    }

    /**
     * @return the CPU time the calling thread used since its run was moved as {@code STARVED}, or -1 if it was not:
     *         a run that was only waiting for a CPU ends soon after, one that computes goes on using it
     */
    public static long cpuSinceStarvedMove() {
        LoopThread t = current();
        long at = t == null ? -1 : t.cpuAtStarvedMove;
        return at < 0 ? -1 : ThreadTimes.cpuNanos() - at;
    }

    /** Set while this thread runs, off its loop, a request whose class computes ({@link #computingRequest}). */
    private volatile boolean inComputingRequest;

    /**
     * The calling thread starts ({@code true}) or ends ({@code false}) a request whose class is known to compute, away
     * from any loop ({@link TimeSlicing} counts it). No-op on other threads.
     */
    public static void computingRequest(boolean computing) {
        LoopThread t = current();
        if (t != null) {
            t.inComputingRequest = computing;
            if (computing) {
                t.computingSinceMove = true;
            }
        }
    }

    /**
     * @return whether this thread computes off the loops now: the rest of a request whose loop moved because it
     *         computed past its limit, or a request whose class computes. Not one moved because it waited for a CPU
     *         ({@code STARVED}): on an overloaded machine that is every long-enough short request. Stall detector.
     */
    boolean computesOffLoop() {
        if (offLoopSince == 0) {
            return false;
        }
        HandOffPolicy.Decision why = lastMove;
        return inComputingRequest || why == HandOffPolicy.Decision.COMPUTED;
    }

    /**
     * The calling thread, working off the loops (a task, a time-sliced run), is about to wait for its own socket: a
     * download or an upload, whose CPU time is copying paced by its client, so {@link TimeSlicing} does not count it
     * as computing. A leader is marked by its own move instead. Slow path only (a socket wait).
     */
    static void waitsForItsSocket() {
        LoopThread t = current();
        if (t != null && t.offLoopSince != 0 && t.lastMove != HandOffPolicy.Decision.SOCKET_WAIT) {
            t.lastMove = HandOffPolicy.Decision.SOCKET_WAIT;
        }
    }

    /** @return why this thread's current work left its loop ({@code STAY}: it runs a task, or never led) */
    HandOffPolicy.Decision lastMove() {
        return lastMove;
    }

    /** @return why the loop moved away from the calling thread's last run that lost it ({@code STAY}: never) */
    public static HandOffPolicy.Decision lastMoveOfCurrent() {
        LoopThread t = current();
        return t == null ? HandOffPolicy.Decision.STAY : t.lastMove;
    }

    int tid() {
        return tid;
    }

    private Object takeAssignment() {
        return assignment.getAndSet(null);
    }

    /**
     * Parks until work is assigned or the idle time elapses.
     *
     * @return the work, or {@code null} when the wait timed out without an assignment
     */
    Object awaitAssignment(long idleNanos) {
        // A request's interrupt (Tomcat's StuckThreadDetectionValve) must not outlive it: with the flag set, every
        // parkNanos below returns at once and the idle thread would spin until its idle timeout.
        Thread.interrupted();
        long deadline = System.nanoTime() + idleNanos;
        Object work;
        while ((work = takeAssignment()) == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || pool.isStopped()) {
                return null;
            }
            LockSupport.parkNanos(this, left);
        }
        return work;
    }
}
