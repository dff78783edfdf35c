package io.hybridconnector.reliability;

/**
 * One point of a time series of a server's resources: the snapshot and when it was taken, in seconds since the load
 * started (so that the series of two servers loaded at once line up). Immutable.
 */
public record Sample(double seconds, Snapshot snapshot) {
}
