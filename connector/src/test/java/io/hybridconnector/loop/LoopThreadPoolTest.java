package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * Work given to a parked pool thread is never lost: not when the thread is just looking for work as it is handed some
 * (its wake-up and the hand-over race), and not in bursts of short tasks from several threads, which is what a loop
 * does while it serves its ready connections on pool threads (TimeSlicing). Before the hand-over was one atomic swap,
 * a thread could read "nothing", be given a task, then clear that task as if it had taken it: the task never ran and
 * the thread parked for good, off the idle stack.
 */
class LoopThreadPoolTest {

    private static final int SUBMITTERS = 3;
    private static final int BURSTS = 2_000;
    private static final int BURST = 16;

    @Test
    void everyTaskRunsInBurstsFromSeveralThreads() throws Exception {
        everyPieceOfWorkRunsInBursts(64, "tasks", (pool, i, work) -> pool.execute(work));
    }

    /**
     * Turns ({@link LoopThreadPool#executeInTurn}) in bursts from several threads all run: each woken thread wakes the
     * next when it starts, and a thread that finishes takes the next turn, so none waits for a wake-up that never comes.
     */
    @Test
    void everyTurnRunsInBurstsFromSeveralThreads() throws Exception {
        everyPieceOfWorkRunsInBursts(8, "turns", (pool, i, work) ->
                pool.executeInTurn(work, i % 4 == 0 ? TimeUnit.MILLISECONDS.toNanos(1) : 0));
    }

    /** How a test hands the {@code i}-th piece of work of a burst to the pool. */
    private interface Submit {
        void submit(LoopThreadPool pool, int i, Runnable work);
    }

    private static void everyPieceOfWorkRunsInBursts(int threads, String what, Submit submit) throws Exception {
        LoopThreadPool pool = new LoopThreadPool("pool-test", threads, true);
        AtomicInteger ran = new AtomicInteger();
        int expected = SUBMITTERS * BURSTS * BURST;
        Thread[] submitters = new Thread[SUBMITTERS];
        try {
            for (int s = 0; s < SUBMITTERS; s++) {
                submitters[s] = new Thread(() -> {
                    for (int b = 0; b < BURSTS; b++) {
                        AtomicInteger left = new AtomicInteger(BURST);
                        for (int i = 0; i < BURST; i++) {
                            submit.submit(pool, i, () -> {
                                ran.incrementAndGet();
                                left.decrementAndGet();
                            });
                        }
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        while (left.get() > 0 && System.nanoTime() < deadline) {
                            Thread.onSpinWait(); // the next burst once this one ran: threads park and wake each time
                        }
                        if (left.get() > 0) {
                            return; // lost work: the assertion below reports it
                        }
                    }
                }, "submitter-" + s);
                submitters[s].start();
            }
            for (Thread t : submitters) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertEquals(expected, ran.get(), what + " lost; pool: " + pool.getPoolSize() + " threads, " +
                    pool.getIdleCount() + " parked on the idle stack");
            assertTrue(pool.getPoolSize() <= threads);
        } finally {
            pool.stop(1000);
        }
    }

    /** With its one thread busy, the pool takes the short turns queued meanwhile before the long one queued first. */
    @Test
    void aBusyPoolTakesShortTurnsBeforeALongOne() throws Exception {
        LoopThreadPool pool = new LoopThreadPool("pool-test", 1, true);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.List<String> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(3);
        try {
            pool.executeInTurn(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, 0);
            assertTrue(started.await(10, TimeUnit.SECONDS));
            pool.executeInTurn(() -> { order.add("long"); done.countDown(); }, TimeUnit.SECONDS.toNanos(60));
            pool.executeInTurn(() -> { order.add("short1"); done.countDown(); }, 0);
            pool.executeInTurn(() -> { order.add("short2"); done.countDown(); }, 0);
            release.countDown();
            assertTrue(done.await(10, TimeUnit.SECONDS), "ran: " + order);
            assertEquals(java.util.List.of("short1", "short2", "long"), order);
        } finally {
            release.countDown();
            pool.stop(1000);
        }
    }

    /**
     * A task that leaves its thread interrupted (a request that Tomcat's StuckThreadDetectionValve interrupted and
     * that ended without clearing the flag) must not make the parked thread spin: a set interrupt flag makes every
     * {@code parkNanos} return at once, so before, the thread burnt a CPU until its idle timeout (60 s).
     */
    @Test
    void aThreadLeftInterruptedParksQuietly() throws Exception {
        LoopThreadPool pool = new LoopThreadPool("pool-test", 2, true);
        try {
            java.util.concurrent.CompletableFuture<Thread> ran = new java.util.concurrent.CompletableFuture<>();
            pool.execute(() -> {
                Thread.currentThread().interrupt();
                ran.complete(Thread.currentThread());
            });
            Thread t = ran.get(10, TimeUnit.SECONDS);
            Thread.sleep(100);
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long before = mx.getThreadCpuTime(t.getId());
            Thread.sleep(500);
            long usedMillis = (mx.getThreadCpuTime(t.getId()) - before) / 1_000_000;
            assertTrue(usedMillis < 50, "the parked thread used " + usedMillis + " ms of CPU in 500 ms");
        } finally {
            pool.stop(1000);
        }
    }
    /**
     * A thread that retires ends after its work (thread renewal), and a task
     * that waited for a thread meanwhile (the pool at {@code threads}) goes to a new thread instead of waiting for good.
     */
    @Test
    void aRetiringThreadEndsAndWorkWaitingForItGoesToANewThread() throws Exception {
        LoopThreadPool pool = new LoopThreadPool("pool-test", 1, true);
        try {
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CompletableFuture<Thread> first = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<Thread> second = new java.util.concurrent.CompletableFuture<>();
            pool.execute(() -> {
                LoopThread.current().retireAfterWork();
                first.complete(Thread.currentThread());
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Thread retiring = first.get(10, TimeUnit.SECONDS);
            pool.execute(() -> second.complete(Thread.currentThread())); // queued: the only thread is busy
            release.countDown();
            Thread next = second.get(10, TimeUnit.SECONDS);
            assertTrue(next != retiring, "the retiring thread took more work");
            retiring.join(10_000);
            assertTrue(!retiring.isAlive(), "the retiring thread did not end");
        } finally {
            pool.stop(1000);
        }
    }
}
