package io.hybridconnector.fairnessmap;

import java.time.Duration;
import java.util.List;

/**
 * How much of the map to run and for how long: {@code quick} (the diagonal, under 10 minutes with both core counts)
 * or {@code full} (every cell). Also sizes each cell's windows from the profile's and the heavy requests' length
 * ({@link #windows}). Immutable; any thread.
 */
enum Profile {

    QUICK(3, Duration.ofMillis(500), Duration.ofMillis(1500), Duration.ofMillis(1500)),
    FULL(3, Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(20));

    /** Heavy requests a window should see at least, so that one more or less moves their rate by 2 % at most. */
    static final int HEAVY_PER_WINDOW = 50;
    /** A warm-up long enough for the heavy connections' closed loop to turn over twice, up to this. */
    static final Duration MAX_WARMUP = Duration.ofSeconds(10);
    /** The least time a request may take before it is an error. */
    static final Duration MIN_TIMEOUT = Duration.ofSeconds(10);

    /** The windows of one cell: unmeasured warm-up on fresh connections, measured window, request timeout. */
    record Windows(Duration warmup, Duration window, Duration timeout) {
    }

    private final int rounds;
    private final Duration warmup;
    private final Duration window;
    private final Duration maxWindow;

    Profile(int rounds, Duration warmup, Duration window, Duration maxWindow) {
        this.rounds = rounds;
        this.warmup = warmup;
        this.window = window;
        this.maxWindow = maxWindow;
    }

    static Profile of(String name) {
        return switch (name) {
            case "quick" -> QUICK;
            case "full" -> FULL;
            default -> throw new IllegalArgumentException("--profile is quick or full, got " + name);
        };
    }

    int rounds() {
        return rounds;
    }

    List<Cell> cells(List<Integer> cores, List<HeavyKind> kinds) {
        return this == QUICK ? Grid.quick(cores, kinds) : Grid.full(cores, kinds);
    }

    /**
     * A cell's windows: the warm-up at least two heavy request lengths, the window long enough for {@link
     * #HEAVY_PER_WINDOW} heavy requests (up to the profile's longest), the timeout four request lengths and 5 s.
     *
     * @param warmupOverride  the profile's warm-up replaced (null: the profile's)
     * @param windowOverride  the profile's window replaced, and its longest with it (null: the profile's)
     */
    Windows windows(Cell cell, Duration warmupOverride, Duration windowOverride) {
        double cycleMs = cell.kind().cycleMillis(cell.ms(), cell.connections(), cell.cores());
        Duration baseWarmup = warmupOverride != null ? warmupOverride : warmup;
        Duration baseWindow = windowOverride != null ? windowOverride : window;
        Duration longest = windowOverride != null ? max(windowOverride, maxWindow) : maxWindow;
        Duration w = min(MAX_WARMUP, max(baseWarmup, millis(2 * cycleMs)));
        Duration m = min(longest, max(baseWindow, millis(HEAVY_PER_WINDOW * cycleMs / cell.connections())));
        Duration t = max(MIN_TIMEOUT, millis(4 * cycleMs + 5000));
        return new Windows(w, m, t);
    }

    private static Duration millis(double ms) {
        return Duration.ofNanos(Math.round(ms * 1e6));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
