package io.hybridconnector.loop;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Finds loop leaders stuck in a request and hands their loops to another thread. A servlet that sleeps, waits for a
 * lock or a database cannot say so; the detector sees that the leader's run has not ended since its previous tick
 * and that the thread is waiting (or has run for many ticks), and moves the loop.
 * <p>
 * Runs on its own daemon thread. It ticks only while some leader is inside a request; after a quiet spell it parks
 * until a leader starts a run ({@link #activity}), so an idle server is not woken every tick. Under load each tick
 * costs the server core two context switches; at the default 5 ms tick that is 200 a second, 0.005 per request at
 * 40,000 requests a second, but 0.3 per request at 600 (100 KB responses to slow clients). So while requests run
 * and none has blocked for 200 ticks, the tick doubles, up to 8 times (40 ms by default); the first move brings it
 * back. Classes known to block move their loop themselves and need no tick (see {@code BlockPredictingAdapter}).
 */
public final class StallDetector implements Runnable {

    /** Ticks inside requests without a move before the tick doubles, up to {@link #MAX_BACK_OFF} times. */
    private static final int TICKS_BEFORE_BACKING_OFF = 200;
    private static final int MAX_BACK_OFF = 8;

    /** Quiet ticks before the detector parks. */
    private static final int QUIET_TICKS_BEFORE_SLEEP = 100;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final long tickNanos;
    private final int runnableTicks;
    private volatile EventLoop[] loops = new EventLoop[0];
    private volatile boolean sleeping;
    private volatile boolean stopped;
    private volatile Thread thread;

    /**
     * @param tickMillis    the tick: how long a waiting request may hold a loop before the hand-off
     * @param runnableTicks ticks a running (not waiting) request may hold a loop
     */
    public StallDetector(long tickMillis, int runnableTicks) {
        this.tickNanos = TimeUnit.MILLISECONDS.toNanos(tickMillis);
        this.runnableTicks = runnableTicks;
    }

    public void start(EventLoop[] loops, String name) {
        this.loops = loops;
        Thread t = new Thread(this, name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    public void stop() {
        stopped = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** A leader started a run. Costs one volatile read unless the detector is parked. */
    void activity() {
        if (sleeping) {
            sleeping = false;
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        int quietTicks = 0;
        int ticksWithoutMove = 0;
        long tick = tickNanos;
        while (!stopped) {
            int seen = tick();
            if (seen == EventLoop.MOVED) {
                // Requests block now: look often.
                tick = tickNanos;
                ticksWithoutMove = 0;
                quietTicks = 0;
            } else if (seen == EventLoop.IN_RUN) {
                quietTicks = 0;
                // Requests run and none blocks (or their classes are learnt and move the loop themselves): every
                // wake-up of this thread costs the server core two context switches for nothing, so look less often.
                if (++ticksWithoutMove >= TICKS_BEFORE_BACKING_OFF && tick < tickNanos * MAX_BACK_OFF) {
                    tick *= 2;
                    ticksWithoutMove = 0;
                }
            } else if (++quietTicks >= QUIET_TICKS_BEFORE_SLEEP) {
                sleeping = true;
                // Re-check after publishing 'sleeping': a leader that began a run before it saw the flag is seen
                // here (its runSeq write precedes its read of the flag).
                if (!anyInRun()) {
                    while (sleeping && !stopped) {
                        LockSupport.park(this);
                    }
                }
                sleeping = false;
                quietTicks = 0;
                continue;
            }
            LockSupport.parkNanos(this, tick);
        }
    }

    /** @return the most that happened on any loop: {@link EventLoop#NOT_IN_RUN}, IN_RUN or MOVED */
    private int tick() {
        int seen = EventLoop.NOT_IN_RUN;
        for (EventLoop loop : loops) {
            seen = Math.max(seen, loop.checkStall(runnableTicks, threads));
        }
        return seen;
    }

    private boolean anyInRun() {
        for (EventLoop loop : loops) {
            if (loop.isInRun()) {
                return true;
            }
        }
        return false;
    }
}
