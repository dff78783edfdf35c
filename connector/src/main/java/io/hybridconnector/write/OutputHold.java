package io.hybridconnector.write;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who may write a connection's gathered response bytes: the thread running the request (the owner), or, once the
 * owner has left them for longer than {@link #HOLD_NANOS} without coming back to its write path, the stall detector
 * on the owner's behalf. This is how bytes the application wrote but did not flush leave no later than stock NIO
 * sends them when the application pauses (DESIGN.md, "Writes"), while back-to-back writes are still gathered.
 * <pre>
 *            hold() (owner: at least stock's 8 KB gathered, the request goes on)
 *   OWNED ─────────────────────────────────────────────► HELD
 *     ▲  ◄──────────────────────────────────────────────  │ │
 *     │       reclaim() (owner back at its write path)    │ │ lookAt(): HELD for HOLD_NANOS (stall detector)
 *     │                                                    │ ▼
 *     └──────────── the detector's one write is done ── FLUSHING ◄── reclaim() waits here (one non-blocking write)
 * </pre>
 * Only the owner moves OWNED to HELD and HELD back to OWNED; only the detector moves HELD to FLUSHING and FLUSHING to
 * OWNED. The state word orders the two threads' use of the gathered bytes: the owner writes them before its release
 * of HELD; the detector uses them only between its CAS to FLUSHING and its release of OWNED, which the owner's
 * {@link #reclaim()} waits for. The owner holds the connection's lock throughout, so no third thread touches them.
 * <p>
 * Owner methods: under the connection's lock. {@link #lookAt}: the stall detector's thread only.
 */
public final class OutputHold {

    /**
     * How long gathered bytes may wait for the owner's next write before the detector sends them. Back-to-back writes
     * (Catalina's 8 KB slices of one {@code write()}, the last slice at the response's end) come back within
     * microseconds; a servlet that waits for a database or sleeps does not.
     */
    public static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final int OWNED = 0;
    private static final int HELD = 1;
    private static final int FLUSHING = 2;
    private static final int SPINS_BEFORE_YIELD = 64;

    /** {@link #reclaim()}: the owner came back before the detector wrote anything. */
    public static final int NOT_FLUSHED = 0;
    /** {@link #reclaim()}: the detector wrote the bytes while the owner ran (it computed, or waited for a CPU). */
    public static final int FLUSHED = 1;
    /** {@link #reclaim()}: the detector wrote the bytes while the owner waited in Java (sleep, lock, wait). */
    public static final int FLUSHED_WHILE_WAITING = 2;

    /** What the detector does with held bytes: one write that never waits. Called in FLUSHING only. */
    @FunctionalInterface
    public interface Flush {
        void flushHeld();
    }

    private final Flush flush;
    private final AtomicInteger state = new AtomicInteger(OWNED);
    /** Whether the detector's list holds this hold; lets the owner list it once per look, not once per hold. */
    private final AtomicBoolean listed = new AtomicBoolean();
    private volatile long heldSinceNanos;
    /** Written by the owner before it releases HELD, read by the detector. */
    private Thread owner;
    /** Written by the detector in FLUSHING, read by the owner after it saw OWNED again. */
    private int flushedByDetector;
    /** Owner only: whether the state may be other than OWNED (saves the volatile read on every write). */
    private boolean holding;

    public OutputHold(Flush flush) {
        this.flush = flush;
    }

    /**
     * Owner: leaves the gathered bytes for the detector if the owner does not come back within {@link #HOLD_NANOS}.
     *
     * @return {@code true} if the caller must hand this hold to the detector ({@code StallDetector.watch}): it is not
     *         in the detector's list yet
     */
    public boolean hold(long nowNanos) {
        heldSinceNanos = nowNanos;
        owner = Thread.currentThread();
        holding = true;
        state.set(HELD);
        return !listed.get() && listed.compareAndSet(false, true);
    }

    /**
     * Owner, before it touches the gathered bytes or the socket: takes them back, waiting out the detector's write
     * if one is under way.
     *
     * @return {@link #NOT_FLUSHED}, {@link #FLUSHED} or {@link #FLUSHED_WHILE_WAITING}: whether the detector wrote the
     *         bytes, and whether the owner was then waiting (a pause of the application's own, not a busy CPU)
     */
    public int reclaim() {
        if (!holding) {
            return NOT_FLUSHED;
        }
        holding = false;
        if (state.compareAndSet(HELD, OWNED)) {
            return NOT_FLUSHED;
        }
        for (int spins = 0; state.get() != OWNED; spins++) {
            if (spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        int flushed = flushedByDetector;
        flushedByDetector = NOT_FLUSHED;
        return flushed;
    }

    /**
     * Stall detector: sends the held bytes if they have waited {@link #HOLD_NANOS}.
     *
     * @return nanoseconds until this hold is due, if it stays in the detector's list; -1 when it leaves the list
     *         (flushed, taken back by the owner, or listed again by the owner meanwhile)
     */
    public long lookAt(long nowNanos) {
        // Unlist before reading the state: an owner that holds again after this either is seen below or lists anew.
        listed.set(false);
        if (state.get() != HELD) {
            return -1;
        }
        long age = nowNanos - heldSinceNanos;
        if (age < HOLD_NANOS) {
            return listed.compareAndSet(false, true) ? HOLD_NANOS - age : -1;
        }
        if (!state.compareAndSet(HELD, FLUSHING)) {
            return -1;
        }
        try {
            Thread.State ownerState = owner.getState();
            flush.flushHeld();
            flushedByDetector = ownerState == Thread.State.RUNNABLE ? FLUSHED : FLUSHED_WHILE_WAITING;
        } finally {
            state.set(OWNED);
        }
        return -1;
    }
}
