package io.hybridconnector.fairnessmap;

import java.io.IOException;
import java.time.Duration;

import io.hybridconnector.bench.harness.measure.ProcStats;

/**
 * Waits between windows until Tomcat has stopped computing: a heavy request whose client left when its window ended
 * (the load generator drains for at most 5 s, and 32 requests computing 200 ms on one core take 6.4 s) still runs on
 * the server, on both connectors, and would take the next window's CPU. Quiet is a 100 ms stretch in which Tomcat
 * used at most a tenth of a CPU. Runs on the main thread.
 */
final class Quiet {

    static final Duration LOOK = Duration.ofMillis(100);
    static final double QUIET_SHARE = 0.1;
    static final Duration MAX_WAIT = Duration.ofSeconds(60);

    private Quiet() {
    }

    /** Returns how long it waited (at least one look); gives up after {@link #MAX_WAIT}. */
    static Duration await(ProcStats tomcat) throws IOException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + MAX_WAIT.toNanos();
        long ticks = tomcat.sample().cpuTicks();
        while (true) {
            Thread.sleep(LOOK.toMillis());
            long now = tomcat.sample().cpuTicks();
            double share = (double) (now - ticks) / tomcat.ticksPerSecond() / (LOOK.toNanos() / 1e9);
            if (share <= QUIET_SHARE || System.nanoTime() > deadline) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            ticks = now;
        }
    }
}
