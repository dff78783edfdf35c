package io.hybridconnector.rubbos.client.stats;

/** The three back-to-back phases of a run; only {@link #RUN} is normally reported. */
public enum Phase {
    UP_RAMP, RUN, DOWN_RAMP
}
