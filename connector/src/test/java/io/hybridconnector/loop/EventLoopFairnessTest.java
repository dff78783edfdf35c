package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.hybridconnector.classify.ThreadTimes;
import io.hybridconnector.loop.HandOffPolicy.Decision;
import io.hybridconnector.loop.LoopFixture.Connection;

import org.junit.jupiter.api.Test;

/**
 * The loop, its pool and its detector without HTTP ({@link LoopFixture}): a run that computes or sleeps past the
 * budget lets the loop's other connection run within a bound, counted under its cause; a run alone on its loop keeps
 * it, and is logged once it held the loop past {@code loopWarnMillis}.
 */
class EventLoopFairnessTest {

    private static final long BUDGET_MILLIS = 5;
    /**
     * The budget, the detector's lateness and a loaded CI machine's scheduling (43 ms once on a busy virtual machine,
     * 2026-11-26); far below the 300 ms a run that kept its loop would make the other connection wait.
     */
    private static final long BOUND_MILLIS = 100;

    @Test
    void aComputingRunGivesTheLoopUpWhenAnotherConnectionIsReady() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            long waited = waitBeside(f, () -> LoopFixture.spin(300));
            assertTrue(waited <= BOUND_MILLIS, "the light connection waited " + waited + " ms");
            // STARVED where the spinning thread got under half a CPU while watched (JIT and GC threads of a busy
            // build machine): the loop moves all the same, only the cause counted differs.
            long moved = f.counters.getHandOffs(Decision.COMPUTED) + f.counters.getHandOffs(Decision.STARVED);
            assertEquals(1, moved, "computed or starved hand-offs");
        }
    }

    @Test
    void aSleepingRunGivesTheLoopUpAtTheFirstLook() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            long waited = waitBeside(f, () -> LoopFixture.sleep(300));
            assertTrue(waited <= BOUND_MILLIS, "the light connection waited " + waited + " ms");
            assertEquals(1, f.counters.getHandOffs(Decision.BLOCKED), "blocked hand-offs");
        }
    }

    @Test
    void aComputingRunAloneKeepsItsLoopAndIsLogged() throws Exception {
        Logger logger = Logger.getLogger(StallDetector.class.getName());
        List<LogRecord> warnings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public synchronized void publish(LogRecord r) {
                if (r.getLevel() == Level.WARNING) {
                    warnings.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, 50)) {
            Connection alone = f.connect("GET /report", () -> LoopFixture.spin(200));
            alone.ready();
            assertTrue(alone.done.await(5, TimeUnit.SECONDS));
            assertEquals(0, f.counters.getHandOffs(), "hand-offs with nobody else to serve");
        } finally {
            logger.removeHandler(handler);
        }
        synchronized (handler) {
            assertEquals(1, warnings.size(), "warnings: " + warnings.size());
            String message = warnings.get(0).getMessage();
            System.out.println("sample WARN: " + message);
            assertTrue(message.contains("GET /report") && message.contains("LoopFixture.spin"), message);
        }
    }

    /**
     * While every run is short, the detector looks once per budget, not once per share: forty connections ready again
     * as each 50 us run ends keep the loop busy with up to 39 ready behind each run (the share of most: the 1 ms
     * floor), and a look at each share found the run it waited for long over (the main job's 10 KB requests at c=100:
     * 1,000 wake-ups a second, 0.06 context switches per request on the detector alone, as many on the leader it
     * preempted).
     * <p>
     * Measured over the first one-second window in which every run was short: no run held the loop for the least limit
     * in it or in the second before (after such a run the detector rightly looks at each share for a second). A 50 us
     * run preempted for a millisecond, by the JIT's threads while the test's code is compiled or by another process,
     * is a long run: on a 2-CPU guest shared with other services (2026-12-07) windows chosen only for little JIT
     * compiling read 541 looks a second in one class run of six, and one run was moved as starved in another.
     */
    @Test
    void whileEveryRunIsShortTheDetectorLooksOncePerBudget() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            AtomicBoolean going = new AtomicBoolean(true);
            List<Connection> busy = busyConnections(f, 40, going);
            Thread.sleep(300);
            Window before = Window.measure(f);
            Window measured = null;
            int windows = 0;
            int withLongRuns = 0;
            while (measured == null && windows < 15) {
                windows++;
                Window w = Window.measure(f);
                long lastLongRun = f.loop.lastLongRunNanos(); // 0: never
                boolean everyRunShort = lastLongRun == 0 || lastLongRun - before.startNanos < 0;
                if (everyRunShort) {
                    measured = w;
                } else {
                    withLongRuns++;
                }
                before = w;
            }
            going.set(false);
            assertTrue(measured != null, "each of " + windows + " windows had a long run in it or in the second "
                    + "before (" + f.counters.getHandOffs() + " hand-offs)");
            assertTrue(measured.runs > 2000, "the loop ran only " + measured.runs + " runs: not busy");
            System.out.printf("detector: %.0f looks a second over %d short runs (window %d; %d before it had a long "
                    + "run)%n", measured.looksPerSecond, measured.runs, windows, withLongRuns);
            // One per budget is 200 a second; twice that leaves room for a collection or a late wake-up.
            assertTrue(measured.looksPerSecond <= 2 * 1000.0 / BUDGET_MILLIS, measured.looksPerSecond
                    + " looks a second for " + busy.size() + " connections of short runs");
            // A 50 us run is never a computing, blocking or predicted one. It may be moved as starved: preempted for
            // its share, it held the loop (which is why the windows around such a run are not measured).
            assertEquals(0, f.counters.getComputedHandOffs(), "short runs moved as computing");
            assertEquals(0, f.counters.getStallHandOffs(), "short runs moved as blocked");
            assertEquals(0, f.counters.getPredictedHandOffs(), "short runs moved as predicted long");
            long starved = f.counters.getHandOffs(Decision.STARVED);
            assertEquals(starved, f.counters.getHandOffs(), "hand-offs of short runs other than starved ones");
        }
    }

    /**
     * A collection that stops every thread during a run is not the run holding its loop. Three times: the detector,
     * parked on an idle loop, is woken by the run's start and looks at it at once; then a full collection with 64 MB
     * live stops everything; the run ends 1 ms after it, beside another ready connection. Before a look that came late
     * decided nothing, the detector's next look saw a run as old as the pause that had used a fraction of a
     * millisecond of CPU, and moved it as starved: behind 100 KB responses at c=100 on one core, one or two such moves
     * per young collection (19 ms each), each leaving two threads to share the CPU.
     * <p>
     * A round counts only where the collection was asked for within half the run's share of its start; in another
     * (up to ten rounds in all) the run had computed past its share before the collection came, and the detector may
     * rightly move it. This thread parks, not spins, while it waits for the detector's look: with the run spinning on
     * the other CPU, a spinning test thread kept the detector from its look, and the collection came 13-19 ms into
     * the run (two failures in a row in a fresh-clone CI run, 2026-12-07, each a right computed or starved move).
     */
    @Test
    void aCollectionPauseInsideARunDoesNotMoveTheLoop() throws Exception {
        try (LoopFixture f = new LoopFixture(BUDGET_MILLIS, -1)) {
            AtomicInteger started = new AtomicInteger();
            AtomicInteger ended = new AtomicInteger();
            AtomicBoolean collected = new AtomicBoolean();
            AtomicLong runStart = new AtomicLong();
            Connection paused = f.connect("paused", () -> {
                runStart.set(System.nanoTime());
                started.incrementAndGet();
                while (!collected.get()) {
                    Thread.onSpinWait();
                }
                LoopFixture.spin(1);
                ended.incrementAndGet();
            });
            Connection light = f.connect("light", () -> { });
            List<byte[]> live = new ArrayList<>();
            for (int i = 0; i < 1 << 20; i++) {
                live.add(new byte[48]);
            }
            long shortest = Long.MAX_VALUE;
            int counted = 0;
            int round = 0;
            while (counted < 3 && round < 10) {
                round++;
                awaitParked(f);
                collected.set(false);
                long handOffs = f.counters.getHandOffs();
                long looks = f.detector.looks();
                paused.ready();
                awaitCount(started, round, "the run did not start");
                light.ready(); // not in the run's batch: the run's share is the whole budget
                while (f.detector.looks() == looks) {
                    LockSupport.parkNanos(20_000); // woken by the run's start, the detector looks at it now
                }
                long asked = System.nanoTime() - runStart.get();
                long pausedBefore = ThreadTimes.gcMillis();
                System.gc();
                long pause = ThreadTimes.gcMillis() - pausedBefore;
                collected.set(true);
                awaitCount(ended, round, "the run did not end");
                if (asked < TimeUnit.MILLISECONDS.toNanos(BUDGET_MILLIS) / 2) {
                    counted++;
                    shortest = Math.min(shortest, pause);
                    assertEquals(0, f.counters.getHandOffs() - handOffs, "hand-offs of a run stretched by a " + pause
                            + " ms collection: " + f.counters.getHandOffs(Decision.STARVED) + " starved in all");
                } else {
                    System.out.printf("round %d not counted: the collection came %.1f ms into the run%n", round,
                            asked / 1e6);
                }
            }
            System.out.println("collection pauses of " + shortest + " ms or more over " + live.size()
                    + " live arrays; " + counted + " rounds counted of " + round);
            assertEquals(3, counted, "rounds whose collection came within half a share of the run's start, of "
                    + round);
            assertTrue(shortest > BUDGET_MILLIS, "a collection paused " + shortest + " ms, not past the budget");
        }
    }

    private static void awaitCount(AtomicInteger count, int expected, String failure) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (count.get() < expected) {
            assertTrue(System.nanoTime() < until, failure);
            Thread.sleep(1);
        }
    }

    /** Waits until the detector of an idle loop has parked: its looks stop. */
    private static void awaitParked(LoopFixture f) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long looks;
        do {
            looks = f.detector.looks();
            Thread.sleep(4 * BUDGET_MILLIS);
        } while (f.detector.looks() != looks && System.nanoTime() < until);
    }

    /** One second of the busy loop: when it began, the detector's looks a second and the loop's runs. */
    private record Window(long startNanos, double looksPerSecond, long runs) {

        static Window measure(LoopFixture f) throws InterruptedException {
            long looks = f.detector.looks();
            long runs = f.counters.getInlineRuns();
            long from = System.nanoTime();
            Thread.sleep(1000);
            double seconds = (System.nanoTime() - from) / 1e9;
            return new Window(from, (f.detector.looks() - looks) / seconds, f.counters.getInlineRuns() - runs);
        }
    }

    /** Connections whose 50 us run makes them ready again while {@code going}. */
    private static List<Connection> busyConnections(LoopFixture f, int n, AtomicBoolean going) throws Exception {
        List<Connection> busy = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            busy.add(f.connectReady("busy-" + i, self -> {
                LoopFixture.spinNanos(TimeUnit.MICROSECONDS.toNanos(50));
                if (going.get()) {
                    self.readyQuietly();
                }
            }));
        }
        return busy;
    }

    /** Makes a heavy connection ready, then a light one; returns how long the light one waited for its run. */
    private static long waitBeside(LoopFixture f, Runnable heavyWork) throws Exception {
        Connection heavy = f.connect("heavy", heavyWork);
        Connection light = f.connect("light", () -> { });
        heavy.ready();
        assertTrue(heavy.ran.await(5, TimeUnit.SECONDS), "the heavy run did not start");
        Thread.sleep(1);
        long readyAt = System.nanoTime();
        light.ready();
        assertTrue(light.ran.await(5, TimeUnit.SECONDS), "the light run did not start");
        assertTrue(heavy.done.await(5, TimeUnit.SECONDS), "the heavy run did not end");
        return TimeUnit.NANOSECONDS.toMillis(light.ranAt - readyAt);
    }
}
