package io.hybridconnector.bench.harness.load;

/**
 * Hooks around the measured window of one cell, called on the load generator's thread, so that server-side counters
 * (/proc, perf) cover the same interval as the request count. Each call pauses the load for as long as it takes:
 * keep them to a few milliseconds.
 */
public interface Probe {

    Probe NONE = new Probe() {
    };

    /** Before the connections are opened and the cell's warm-up starts: time to start slow things (perf). */
    default void beforeWarmup() {
    }

    /** Right before the measured window opens. */
    default void measureStart() {
    }

    /** Right after the measured window closes (in-flight requests are still being answered). */
    default void measureEnd() {
    }
}
