package io.hybridconnector.rubbos.client.stats;

import java.time.Duration;

/**
 * Which phase a moment belongs to, from the start of the run and the phase lengths. Immutable; any thread.
 */
public final class PhaseClock {

    private final long startNanos;
    private final long upEnd;
    private final long runEnd;
    private final long downEnd;

    public PhaseClock(long startNanos, Duration up, Duration run, Duration down) {
        this.startNanos = startNanos;
        this.upEnd = startNanos + up.toNanos();
        this.runEnd = upEnd + run.toNanos();
        this.downEnd = runEnd + down.toNanos();
    }

    /** @return the phase at {@code nanoTime}, or null once the run is over */
    public Phase at(long nanoTime) {
        if (nanoTime < upEnd) {
            return Phase.UP_RAMP;
        }
        if (nanoTime < runEnd) {
            return Phase.RUN;
        }
        return nanoTime < downEnd ? Phase.DOWN_RAMP : null;
    }

    /** @return the next phase boundary after {@code nanoTime} (the end of the run at the latest) */
    public long nextBoundary(long nanoTime) {
        for (long boundary : new long[] {upEnd, runEnd, downEnd}) {
            if (nanoTime < boundary) {
                return boundary;
            }
        }
        return downEnd;
    }

    public long startNanos() {
        return startNanos;
    }

    public long endNanos() {
        return downEnd;
    }

    public double seconds(Phase phase) {
        return switch (phase) {
            case UP_RAMP -> (upEnd - startNanos) / 1e9;
            case RUN -> (runEnd - upEnd) / 1e9;
            case DOWN_RAMP -> (downEnd - runEnd) / 1e9;
        };
    }
}
