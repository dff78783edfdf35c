package io.hybridconnector.experiments;

import java.util.Map;

import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.measure.PerfSyscalls;
import io.hybridconnector.bench.harness.measure.ServerProbe;

/** Turns one window's client result, server deltas and MBean readings into a {@link Row}. Stateless. */
final class Metrics {

    private Metrics() {
    }

    static Row row(String phase, Plan.Cell cell, Variant v, int round, CellResult c, ServerProbe.Delta d,
            WindowProbe wp) {
        return row(phase, cell, v, round, c, c.requests(), d, wp);
    }

    /**
     * A fairness window: the light load's figures as the row's own (rps, p50, p99, plus p90 and max), the heavy
     * load's with a {@code heavy_} prefix; server counters per request count light and heavy requests together.
     */
    static Row fairnessRow(String phase, Plan.Cell cell, Variant v, int round, Fairness.Result res,
            ServerProbe.Delta d, WindowProbe wp) {
        CellResult light = res.light();
        CellResult heavy = res.heavy();
        Row r = row(phase, cell, v, round, light, light.requests() + (heavy == null ? 0 : heavy.requests()), d, wp);
        r.put("p90_ms", light.latencyMillis(90)).put("max_ms", light.latencyMillis(100))
                .put("heavy_path", cell.beside().path() == null ? "" : cell.beside().path())
                .put("heavy_connections", cell.beside().connections());
        if (heavy != null) {
            r.put("heavy_requests", heavy.requests()).put("heavy_rps", heavy.requestsPerSecond())
                    .put("heavy_p50_ms", heavy.latencyMillis(50)).put("heavy_p99_ms", heavy.latencyMillis(99))
                    .put("heavy_errors", heavy.errorCount())
                    .put("heavy_error_kinds", heavy.errors().isEmpty() ? "" : heavy.errorsText());
        }
        return r;
    }

    private static Row row(String phase, Plan.Cell cell, Variant v, int round, CellResult c, long allRequests,
            ServerProbe.Delta d, WindowProbe wp) {
        double req = allRequests;
        Row r = new Row().put("experiment", cell.experiment()).put("condition", cell.condition())
                .put("workload", cell.workload().label()).put("concurrency", cell.concurrency()).put("variant", v.id())
                .put("phase", phase).put("round", round).put("think_ms", cell.think().toMillis())
                .put("requests", c.requests()).put("window_s", c.windowNanos() / 1e9)
                .put("rps", c.requestsPerSecond()).put("p50_ms", c.latencyMillis(50)).put("p99_ms", c.latencyMillis(99))
                .put("errors", c.errorCount()).put("error_kinds", c.errors().isEmpty() ? "" : c.errorsText())
                .put("reconnects", c.reconnects());
        r.put("cs_per_req", per(d.contextSwitches(), req));
        r.put("cpu_us_per_req", req == 0 ? Double.NaN : d.cpuNanos() / 1000 / req);
        double tick = 1e6 / d.ticksPerSecond();
        if (wp.userSysStart != null && wp.userSysEnd != null) {
            r.put("user_us_per_req", per((wp.userSysEnd[0] - wp.userSysStart[0]) * tick, req));
            r.put("sys_us_per_req", per((wp.userSysEnd[1] - wp.userSysStart[1]) * tick, req));
        }
        for (String col : PerfSyscalls.COLUMNS) {
            Long n = d.syscalls().get(col);
            r.put(col + "_per_req", n == null ? Double.NaN : per(n, req));
            r.put("perf_" + col, n == null ? -1 : n);
        }
        r.put("server_cpu_busy", d.serverCpuBusyShare());
        r.put("server_process_cpu_share", d.cpuNanos() / c.windowNanos());
        // same span as the busy share (both sampled together at the window's edges), unlike the window length
        r.put("others_on_cpu0", d.serverCpuTotalTicks() == 0 ? Double.NaN
                : (double) (d.serverCpuBusyTicks() - d.cpuTicks()) / d.serverCpuTotalTicks());
        r.put("probe_ms", (wp.startNanos + wp.endNanos) / 1e6);
        r.put("client_cpu_share", c.clientCpuShare());
        if (d.perfProblem() != null) {
            r.put("perf_problem", d.perfProblem());
        }
        if (wp.beanStart != null && wp.beanEnd != null) {
            bean(r, "mbean_", wp.beanStart, wp.beanEnd);
            if (wp.beanOuterStart != null && wp.beanOuterEnd != null) {
                bean(r, "mbeanouter_", wp.beanOuterStart, wp.beanOuterEnd);
            }
        } else if (wp.problem != null) {
            r.put("mbean_problem", wp.problem);
        }
        return r;
    }

    /** Deltas of counters; gauges (peak bytes, classifier size) as read at the end. */
    private static void bean(Row r, String prefix, Map<String, Long> start, Map<String, Long> end) {
        for (Map.Entry<String, Long> e : end.entrySet()) {
            Long s = start.get(e.getKey());
            long delta = e.getKey().endsWith("PeakBytes") || e.getKey().startsWith("Classifier")
                    ? e.getValue() : e.getValue() - (s == null ? 0 : s);
            r.put(prefix + e.getKey(), delta);
        }
    }

    private static double per(double n, double requests) {
        return requests == 0 ? Double.NaN : n / requests;
    }
}
