package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.hybridconnector.loop.LoopFixture.Connection;

import org.junit.jupiter.api.Test;

/**
 * Work queued for a loop by other threads ({@link EventLoop#submit}) wakes its selector only when the leader selects:
 * a request served off the loop gives its connection back with a task, and waking the selector for each took a lock
 * in the JDK that the waking leader needed too (beside 16 requests computing on one core, 4,215 blocks in one run).
 * And no task waits for the select's timeout.
 */
class EventLoopWakeUpTest {

    private static final long BUDGET_MILLIS = 5;

    /** A hundred tasks queued while a run holds the loop: no wake-up, the leader runs them as the run ends. */
    @Test
    void tasksQueuedWhileTheLeaderRunsDoNotWakeTheSelector() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch queued = new CountDownLatch(1);
            Connection busy = f.connect("busy", () -> {
                running.countDown();
                while (queued.getCount() > 0) {
                    Thread.onSpinWait(); // computing, alone on its loop: the run keeps it
                }
            });
            busy.ready();
            assertTrue(running.await(5, TimeUnit.SECONDS), "the run did not start");
            long before = f.counters.getSelectorWakeups();
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < 100; i++) {
                f.loop.submit(() -> {
                    ran.incrementAndGet();
                    return true;
                });
            }
            long wakeups = f.counters.getSelectorWakeups() - before;
            queued.countDown();
            assertTrue(busy.done.await(5, TimeUnit.SECONDS), "the run did not end");
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (ran.get() < 100 && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertEquals(100, ran.get(), "tasks run");
            assertEquals(0, wakeups, "selector wake-ups for 100 tasks queued while the leader ran");
            assertEquals(0, f.counters.getHandOffs(), "hand-offs");
        }
    }

    /**
     * A task queued while the leader selects, or is about to, runs at once, not at the select's timeout (a second,
     * the timeout sweep's interval): a thousand times, each as soon as the previous one ran, so that submits fall
     * on every step of the leader's way into its select.
     */
    @Test
    void aTaskQueuedWhileTheLeaderSelectsRunsAtOnce() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            long longest = 0;
            for (int i = 0; i < 1000; i++) {
                CountDownLatch ran = new CountDownLatch(1);
                AtomicLong at = new AtomicLong();
                long submitted = System.nanoTime();
                f.loop.submit(() -> {
                    at.set(System.nanoTime());
                    ran.countDown();
                    return true;
                });
                assertTrue(ran.await(5, TimeUnit.SECONDS), "task " + i + " did not run");
                longest = Math.max(longest, at.get() - submitted);
            }
            System.out.printf("1000 tasks, the longest ran %.2f ms after it was queued; %d selector wake-ups%n",
                    longest / 1e6, f.counters.getSelectorWakeups());
            // A lost wake-up waits for the select's timeout, up to a second.
            assertTrue(longest < TimeUnit.MILLISECONDS.toNanos(500), "a task waited " + longest / 1e6 + " ms");
            assertTrue(f.counters.getSelectorWakeups() > 0, "no wake-up: the leader never selected");
        }
    }
}
