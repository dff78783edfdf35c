package io.hybridconnector.classify;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * {@link ThreadTimes} decides whether a request blocked: a request that computed must not look blocked however short
 * it was (the kernel's schedstat CPU field only moves at ticks, so reading it made a 1 ms computation look like a 1 ms
 * wait), and a request that slept must.
 */
class ThreadTimesTest {

    @Test
    void shortComputationsCountAsNotBlocked() {
        spin(TimeUnit.MILLISECONDS.toNanos(20)); // warm up
        int lookedBlocked = 0;
        for (int i = 0; i < 50; i++) {
            long wall0 = System.nanoTime();
            long running0 = ThreadTimes.notBlockedNanos();
            spin(TimeUnit.MICROSECONDS.toNanos(800));
            long wall = System.nanoTime() - wall0;
            long running = ThreadTimes.notBlockedNanos() - running0;
            if (running * 2 < wall) {
                lookedBlocked++;
            }
        }
        // A run that the test machine preempted for long may look blocked once in a while; most must not.
        assertTrue(lookedBlocked <= 5, lookedBlocked + " of 50 computations of 0.8 ms looked blocked");
    }

    @Test
    void sleepsCountAsBlocked() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            long wall0 = System.nanoTime();
            long running0 = ThreadTimes.notBlockedNanos();
            Thread.sleep(5);
            long wall = System.nanoTime() - wall0;
            long running = ThreadTimes.notBlockedNanos() - running0;
            assertTrue(running * 2 < wall, "a 5 ms sleep ran for " + running + " of " + wall + " ns");
        }
    }

    private static long sink;

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        sink += x;
    }
}
