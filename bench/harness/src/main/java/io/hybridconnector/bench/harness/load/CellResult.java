package io.hybridconnector.bench.harness.load;

import java.util.Map;
import java.util.TreeMap;

import org.HdrHistogram.Histogram;

/**
 * What one cell measured, over its measured window only.
 *
 * @param requests       complete, correctly framed responses with the expected status and body length received
 *                       in the window
 * @param errors         failures in the window by kind (connect, closed, timeout, framing, status-NNN, body-length)
 * @param windowNanos    length of the window as measured
 * @param latency        request latency in nanoseconds, first request byte written to last response byte read; a
 *                       closed loop, so no coordinated-omission correction (latency is the service time seen)
 * @param clientCpuNanos CPU time of the load generator's thread in the window
 * @param bodyBytes      response body bytes of the counted requests
 * @param reconnects     connections replaced after an error or a {@code Connection: close}
 */
public record CellResult(long requests, Map<String, Long> errors, long windowNanos, Histogram latency,
        long clientCpuNanos, long bodyBytes, long reconnects) {

    public double requestsPerSecond() {
        return requests * 1e9 / windowNanos;
    }

    public long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Share of one CPU the load generator used in the window: near 1.0 means the client, not the server, limits. */
    public double clientCpuShare() {
        return (double) clientCpuNanos / windowNanos;
    }

    public double latencyMillis(double percentile) {
        return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(percentile) / 1e6;
    }

    public String errorsText() {
        return errors.isEmpty() ? "0" : new TreeMap<>(errors).toString();
    }
}
