package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The order in which pool threads take the connections a time-slicing loop hands them: connections whose last request
 * was short first, each kind first come, first served, and a long one no later than its last request ran. In one
 * queue a light request waited for a thread behind every computing one queued before it (beside 16 computing 2 ms on
 * one core: light requests at 0.31x-0.44x stock's throughput).
 */
class TurnsTest {

    private static final long LONG_AGO = TimeUnit.DAYS.toNanos(1);
    /** The pool's thread limit, Tomcat's default {@code maxThreads}. */
    private static final int THREADS = 200;

    @Test
    void shortTurnsGoFirstEachKindInArrivalOrder() {
        Turns turns = new Turns();
        Runnable long1 = () -> { };
        Runnable short1 = () -> { };
        Runnable long2 = () -> { };
        Runnable short2 = () -> { };
        turns.add(long1, LONG_AGO, THREADS);
        turns.add(short1, 0, THREADS);
        turns.add(long2, LONG_AGO, THREADS);
        turns.add(short2, 0, THREADS);
        assertSame(short1, turns.poll());
        assertSame(short2, turns.poll());
        assertSame(long1, turns.poll());
        assertSame(long2, turns.poll());
        assertNull(turns.poll());
        assertTrue(turns.isEmpty());
    }

    /**
     * Light ends at the least limit (1 ms), the line time slicing draws. At half the budget (2.5 ms, until 2026-12-07)
     * about half of the turns of requests computing 2 ms of wall time, which take 2-3 ms on a shared core, queued with
     * the light ones: light requests beside 16 of them got 0.55x stock's throughput, 0.90x with this line.
     */
    @Test
    void aRequestOfOneMillisecondOrMoreIsNotALightOne() {
        Turns turns = new Turns();
        Runnable twoMillis = () -> { };
        Runnable almostOne = () -> { };
        Runnable light = () -> { };
        turns.add(twoMillis, TimeUnit.MICROSECONDS.toNanos(2000), THREADS);
        turns.add(almostOne, TimeUnit.MICROSECONDS.toNanos(990), THREADS);
        turns.add(light, TimeUnit.MICROSECONDS.toNanos(50), THREADS);
        assertSame(almostOne, turns.poll());
        assertSame(light, turns.poll());
        assertSame(twoMillis, turns.poll());
    }

    @Test
    void aLongTurnWaitsBehindShortOnesAtMostAsLongAsItLastRan() throws Exception {
        long ran = TimeUnit.MILLISECONDS.toNanos(20);
        Turns turns = new Turns();
        Runnable computing = () -> { };
        Runnable light1 = () -> { };
        Runnable light2 = () -> { };
        long queued = System.nanoTime();
        turns.add(computing, ran, THREADS);
        turns.add(light1, 0, THREADS);
        turns.add(light2, 0, THREADS);
        Runnable first = turns.poll();
        if (System.nanoTime() - queued < ran) { // a pause of this thread could make it late, and then it is first
            assertSame(light1, first);
        }
        sleepUntil(queued + ran + TimeUnit.MILLISECONDS.toNanos(5));
        assertSame(computing, turns.poll(), "a long turn waited behind a short one longer than it last ran");
    }

    /**
     * A fair scheduler makes a thread that ran long wait while each runnable thread catches up with it: a long turn
     * waits as long as it ran for each turn queued ahead of it. With one patience whatever was queued, light requests
     * beside 16 computing 2 ms of wall time on one core got 0.92x stock's throughput in nine quick maps; with this,
     * 1.57x in six.
     */
    @Test
    void aLongTurnWaitsAsLongAsItRanForEachTurnQueuedAheadOfIt() throws Exception {
        long ran = TimeUnit.MILLISECONDS.toNanos(50);
        Turns turns = new Turns();
        Runnable computing = () -> { };
        long queued = System.nanoTime();
        turns.add(() -> { }, 0, THREADS);
        turns.add(() -> { }, 0, THREADS);
        turns.add(computing, ran, THREADS);
        turns.poll();
        turns.poll();
        sleepUntil(queued + ran + TimeUnit.MILLISECONDS.toNanos(10));
        Runnable light = () -> { };
        turns.add(light, 0, THREADS);
        Runnable first = turns.poll();
        if (System.nanoTime() - queued < 2 * ran) {
            assertSame(light, first, "a long turn with two turns ahead of it waited only as long as it ran");
        }
        sleepUntil(queued + 2 * ran + TimeUnit.MILLISECONDS.toNanos(10));
        turns.add(() -> { }, 0, THREADS);
        assertSame(computing, turns.poll(), "a long turn waited longer than it ran for each turn ahead of it");
    }

    /** On stock NIO at most {@code maxThreads} workers share the CPU: no more turns ahead count than that. */
    @Test
    void theTurnsAheadThatCountAreAtMostThePoolsThreads() throws Exception {
        long ran = TimeUnit.MILLISECONDS.toNanos(50);
        Turns turns = new Turns();
        Runnable computing = () -> { };
        long queued = System.nanoTime();
        turns.add(() -> { }, 0, 1);
        turns.add(() -> { }, 0, 1);
        turns.add(computing, ran, 1);
        sleepUntil(queued + ran + TimeUnit.MILLISECONDS.toNanos(10));
        assertSame(computing, turns.poll(), "a long turn counted more turns ahead than the pool has threads");
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
