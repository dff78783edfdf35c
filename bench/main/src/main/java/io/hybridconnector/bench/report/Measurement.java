package io.hybridconnector.bench.report;

import java.util.LinkedHashMap;
import java.util.Map;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.measure.PerfSyscalls;
import io.hybridconnector.bench.harness.measure.ServerProbe;

/** One measured window: a cell, a connector, a round, what the client and the server counters saw. Immutable. */
public record Measurement(Cell cell, String connector, int round, CellResult client, ServerProbe.Delta server) {

    /** A response size and a concurrency. */
    /** A response size at a concurrency; {@code close}: a new connection per request (churn). */
    public record Cell(String kb, int concurrency, boolean close) {

        public Cell(String kb, int concurrency) {
            this(kb, concurrency, false);
        }

        public String label() {
            return kb + " KB, c=" + concurrency + (close ? ", Connection: close" : "");
        }
    }

    /** The per-request metrics of the table, in print order; NaN when not measured (no perf, no requests). */
    public Map<String, Double> metrics() {
        Map<String, Double> m = new LinkedHashMap<>();
        double requests = client.requests();
        m.put(Metric.RPS, client.requestsPerSecond());
        m.put(Metric.P50, client.latencyMillis(50));
        m.put(Metric.P99, client.latencyMillis(99));
        m.put(Metric.CS, perRequest(server.contextSwitches()));
        m.put(Metric.CPU, requests == 0 ? Double.NaN : server.cpuNanos() / 1000 / requests);
        for (String column : PerfSyscalls.COLUMNS) {
            Long count = server.syscalls().get(column);
            m.put(column + "/req", count == null ? Double.NaN : perRequest(count));
        }
        m.put(Metric.ERRORS, (double) client.errorCount());
        m.put(Metric.TOMCAT_CPU, server.cpuNanos() / client.windowNanos());
        m.put(Metric.SERVER_CPU_BUSY, server.serverCpuBusyShare());
        m.put(Metric.CLIENT_CPU, client.clientCpuShare());
        m.put(Metric.CLIENT_CPU_PER_REQUEST, requests == 0 ? Double.NaN : client.clientCpuNanos() / 1000 / requests);
        return m;
    }

    private double perRequest(long count) {
        return client.requests() == 0 ? Double.NaN : (double) count / client.requests();
    }

    /** Metric names as printed. */
    public static final class Metric {
        public static final String RPS = "req/s";
        public static final String P50 = "p50 latency ms";
        public static final String P99 = "p99 latency ms";
        public static final String CS = "context switches/req";
        public static final String CPU = "CPU us/req";
        public static final String ERRORS = "errors";
        public static final String CLIENT_CPU = "load generator CPU share";
        /**
         * The load generator's CPU per request: the same code for both connectors and in every session, so it shows
         * how fast the host ran. Compare it before comparing one session's server figures with another's.
         */
        public static final String CLIENT_CPU_PER_REQUEST = "load generator CPU us/req";
        /** Tomcat's CPU time / window: below SERVER_CPU_BUSY by what other processes took from the server CPU. */
        public static final String TOMCAT_CPU = "Tomcat CPU share";
        public static final String SERVER_CPU_BUSY = "server CPU busy (any process)";

        private Metric() {
        }
    }
}
