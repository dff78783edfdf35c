package io.hybridconnector.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.hybridconnector.Descriptors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ThreadTimes} decides whether a request blocked: a request that computed must not look blocked however short
 * it was (the kernel's schedstat CPU field only moves at ticks, so reading it made a 1 ms computation look like a 1 ms
 * wait), and a request that slept must.
 */
class ThreadTimesTest {

    @AfterEach
    void release() {
        ThreadTimes.releaseCallingThread();
    }

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

    /**
     * The schedstat file stays open between looks, and each look must read the kernel's count as it is then, not what
     * the first look saw: a thread that only ever runs or waits for a CPU (more spinning threads than CPUs) never
     * looks blocked, though its CPU time alone falls well behind its wall time.
     */
    @Test
    void waitingForACpuCountsAsNotBlockedOnEveryLook() throws InterruptedException {
        ThreadTimes.notBlockedNanos(); // the first look opens the file
        assertRunQueueCounted();
    }

    /**
     * An interrupt closes the file a look is reading (a {@code FileChannel} is interruptible); the thread's later looks
     * must read the run-queue time again, not fall back to CPU time for the rest of its life.
     */
    @Test
    void aLookDuringAnInterruptDoesNotLoseTheRunQueueForLater() throws InterruptedException {
        ThreadTimes.notBlockedNanos();
        Thread.currentThread().interrupt();
        ThreadTimes.notBlockedNanos();
        assertTrue(Thread.interrupted(), "the look kept the thread's interrupt status");
        assertRunQueueCounted();
    }

    private static void assertRunQueueCounted() throws InterruptedException {
        int cpus = Runtime.getRuntime().availableProcessors();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < 2 * cpus; i++) {
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    spin(TimeUnit.MILLISECONDS.toNanos(1));
                }
            });
            t.start();
            spinners.add(t);
        }
        try {
            for (int i = 0; i < 3; i++) {
                long wall0 = System.nanoTime();
                long cpu0 = ThreadTimes.cpuNanos();
                long running0 = ThreadTimes.notBlockedNanos();
                spin(TimeUnit.MILLISECONDS.toNanos(100));
                long wall = System.nanoTime() - wall0;
                long cpu = ThreadTimes.cpuNanos() - cpu0;
                long running = ThreadTimes.notBlockedNanos() - running0;
                assertTrue(running * 10 >= wall * 8, "ran or waited for a CPU " + running + " of " + wall
                        + " ns (CPU " + cpu + " ns): a look read no run-queue time, or a stale one");
            }
        } finally {
            stop.set(true);
            for (Thread t : spinners) {
                t.join();
            }
        }
    }

    /** A thread's kept schedstat file is closed when the thread releases it: connector threads must not leak one. */
    @Test
    void releasingClosesTheThreadsFile() throws Exception {
        int before = openSchedstatFiles();
        Thread t = new Thread(() -> {
            ThreadTimes.notBlockedNanos();
            assertEquals(before + 1, openSchedstatFiles(), "the look kept its file");
            ThreadTimes.releaseCallingThread();
        });
        List<Throwable> failure = new ArrayList<>();
        t.setUncaughtExceptionHandler((thread, e) -> failure.add(e));
        t.start();
        t.join();
        assertTrue(failure.isEmpty(), () -> failure.get(0).toString());
        assertEquals(before, openSchedstatFiles());
    }

    private static int openSchedstatFiles() {
        try {
            return Descriptors.countTargets(target -> target.endsWith("/schedstat"));
        } catch (IOException e) {
            throw new AssertionError(e);
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
