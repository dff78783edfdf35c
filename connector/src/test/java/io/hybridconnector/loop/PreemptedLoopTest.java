package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.hybridconnector.loop.LoopFixture.Connection;

import org.junit.jupiter.api.Test;

/**
 * A loop that serves back to back on one CPU beside two requests computing off it gets the CPU back within about a
 * scheduler slice when the detector paces its looks ({@link PreemptionPacer}); unpaced, it waited a timer tick per
 * computing thread (8 ms at 250 Hz). The whole test JVM is pinned to one CPU for the two runs ({@code taskset}), as the
 * main job pins the server, and given its CPUs back after.
 */
class PreemptedLoopTest {

    /**
     * Unpaced, the loop waits a timer tick per computing thread: 8.26-8.83 ms measured here (250 Hz, 3 runs); paced,
     * about a scheduler slice per computing thread: 3.82-4.35 ms. On a 1000 Hz kernel both are short, and this test
     * cannot tell them apart; it prints both. On a virtual machine whose host is busy (2026-11-26: the same runs gave
     * 8.8-10.9 ms paced and 12.5-16.5 unpaced) both stretch alike, so a paced run also passes at under
     * {@link #PACED_TO_UNPACED} of the unpaced one beside it; and the pair is measured again, up to
     * {@link #ATTEMPTS} times, until one passes. Without pacing every pair is alike and none passes.
     */
    private static final double PACED_GAP_P99_MILLIS = 6.0;
    private static final double PACED_TO_UNPACED = 0.6;
    private static final int ATTEMPTS = 3;
    private static final Path TASKSET = Path.of("/usr/bin/taskset");

    @Test
    void aPreemptedLoopGetsItsCpuBackWithinASliceWhenPaced() throws Exception {
        assumeTrue(Files.isExecutable(TASKSET), "taskset (util-linux) is not installed");
        long pid = ProcessHandle.current().pid();
        Taskset current = taskset("-p", "-c", String.valueOf(pid));
        assertTrue(current.ok(), "taskset failed: " + current.output());
        String cpus = current.output().replaceAll("(?s).*:\\s*", "").trim();
        StringBuilder seen = new StringBuilder();
        boolean passed = false;
        for (int attempt = 0; attempt < ATTEMPTS && !passed; attempt++) {
            double paced;
            double unpaced;
            try {
                pinAllThreads(pid, "0");
                unpaced = gapP99Millis(0);
                paced = gapP99Millis(PreemptionPacer.DEFAULT_PACED_LOOK_NANOS);
            } finally {
                pinAllThreads(pid, cpus);
            }
            System.out.printf("loop's p99 time off its CPU beside 2 computing threads on one CPU: paced %.2f ms, "
                    + "unpaced %.2f ms%n", paced, unpaced);
            seen.append(String.format(" paced %.2f / unpaced %.2f ms;", paced, unpaced));
            passed = paced <= Math.max(PACED_GAP_P99_MILLIS, PACED_TO_UNPACED * unpaced);
        }
        assertTrue(passed, "paced loop waited too long (p99) in every attempt:" + seen);
    }

    /**
     * Two connections compute 700 ms each (they lose the loop at the budget: a third is ready), a third keeps the
     * loop busy with 100 us runs back to back; returns the 99th percentile of the gaps between its runs while both
     * compute off the loop.
     */
    private static double gapP99Millis(long pacedLookNanos) throws Exception {
        try (LoopFixture f = new LoopFixture(5, -1, pacedLookNanos)) {
            long[] gaps = new long[200_000];
            int[] count = new int[1];
            long[] last = new long[1];
            long[] window = new long[2];
            AtomicBoolean stop = new AtomicBoolean();
            Connection[] light = new Connection[1];
            light[0] = f.connect("light", () -> {
                LoopFixture.spinNanos(100_000);
                long now = System.nanoTime();
                if (now > window[0] && now < window[1] && last[0] != 0 && count[0] < gaps.length) {
                    gaps[count[0]++] = now - last[0];
                }
                last[0] = System.nanoTime();
                if (!stop.get()) {
                    readyAgain(light[0]);
                }
            });
            Connection a = f.connect("heavy-a", () -> LoopFixture.spin(700));
            Connection b = f.connect("heavy-b", () -> LoopFixture.spin(700));
            long start = System.nanoTime();
            window[0] = start + TimeUnit.MILLISECONDS.toNanos(100);
            window[1] = start + TimeUnit.MILLISECONDS.toNanos(600);
            a.ready();
            light[0].ready();
            b.ready();
            assertTrue(a.done.await(10, TimeUnit.SECONDS) && b.done.await(10, TimeUnit.SECONDS), "computing runs");
            stop.set(true);
            assertTrue(f.counters.getHandOffs() >= 2, "both computing runs should have lost the loop");
            assertTrue(count[0] > 100, "light runs in the window: " + count[0]);
            long[] measured = Arrays.copyOf(gaps, count[0]);
            Arrays.sort(measured);
            return measured[(int) (measured.length * 0.99)] / 1e6;
        }
    }

    private static void readyAgain(Connection c) {
        try {
            c.ready();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code taskset -a} lists the process's threads and then sets each; a thread that exits in between (a pool
     * thread of the fixture just closed) makes it fail with "No such process" (seen once in CI). The next attempt
     * lists the threads again.
     */
    private static void pinAllThreads(long pid, String cpus) throws IOException, InterruptedException {
        Taskset last = null;
        for (int attempt = 0; attempt < 5 && (last == null || !last.ok()); attempt++) {
            if (last != null) {
                Thread.sleep(50);
            }
            last = taskset("-a", "-p", "-c", cpus, String.valueOf(pid));
        }
        assertTrue(last.ok(), "taskset failed: " + last.output());
    }

    /** What one run of taskset said. */
    private record Taskset(boolean ok, String output) {
    }

    private static Taskset taskset(String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = TASKSET.toString();
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Taskset(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    }
}
