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

    @Test
    void shortTurnsGoFirstEachKindInArrivalOrder() {
        Turns turns = new Turns();
        Runnable long1 = () -> { };
        Runnable short1 = () -> { };
        Runnable long2 = () -> { };
        Runnable short2 = () -> { };
        turns.add(long1, LONG_AGO);
        turns.add(short1, 0);
        turns.add(long2, LONG_AGO);
        turns.add(short2, 0);
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
        turns.add(twoMillis, TimeUnit.MICROSECONDS.toNanos(2000));
        turns.add(almostOne, TimeUnit.MICROSECONDS.toNanos(990));
        turns.add(light, TimeUnit.MICROSECONDS.toNanos(50));
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
        turns.add(computing, ran);
        turns.add(light1, 0);
        turns.add(light2, 0);
        Runnable first = turns.poll();
        if (System.nanoTime() - queued < ran) { // a pause of this thread could make it late, and then it is first
            assertSame(light1, first);
        }
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(ran) + 5);
        assertSame(computing, turns.poll(), "a long turn waited behind a short one longer than it last ran");
    }
}
