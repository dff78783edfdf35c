package io.hybridconnector.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.hybridconnector.bench.harness.report.Stats.format;
import static io.hybridconnector.bench.harness.report.Stats.median;
import static io.hybridconnector.bench.harness.report.Stats.summary;

/**
 * Turns measurements into the side-by-side table (markdown, also printed) and CSV rows. Pure functions; any thread.
 */
public final class ResultsTable {

    /**
     * Stock NIO in shared/anchors/baseline-stock-connectors.md ("Key table", main matrix: wrk, embedded Tomcat
     * 10.1.59, Temurin 25, 10 s windows): req/s, cs/req, CPU us/req, socket writes/req, wake-up writes/req. Printed
     * beside our stock-NIO numbers as a plausibility check of this load generator.
     */
    private static final Map<String, double[]> BASELINE_NIO = Map.of(
            "0.1@8", new double[] { 47265, 0.369, 21, 1.00, 0.141 },
            "0.1@100", new double[] { 38927, 0.073, 23, 1.00, 0.019 },
            "0.1@1000", new double[] { 27347, 0.224, 27, 1.00, 0.004 },
            "10@8", new double[] { 8589, 1.35, 103, 2.00, 0.207 },
            "10@100", new double[] { 12796, 0.066, 78, 2.00, 0.022 },
            "10@1000", new double[] { 7961, 0.217, 105, 2.02, 0.020 },
            "100@8", new double[] { 1194, 1.74, 829, 13.0, 0.238 },
            "100@100", new double[] { 1197, 0.573, 758, 13.1, 0.180 },
            "100@1000", new double[] { 1468, 0.464, 657, 13.2, 0.144 });
    private static final List<String> BASELINE_METRICS = List.of(Measurement.Metric.RPS, Measurement.Metric.CS,
            Measurement.Metric.CPU, "write/req", "wakeup/req");

    private ResultsTable() {
    }

    /**
     * Rows per cell and metric; columns: each connector's median (min-max) over rounds, the ratio of the two
     * medians (second / first), the median (min-max) of the rounds' own ratios, and the baseline file's stock NIO
     * figure where it has one.
     * <p>
     * Why the rounds' ratios: each round runs the two connectors back to back, so a host that slows down for a while
     * (another guest, a frequency change) slows both halves of a round alike, while the medians over rounds may come
     * from different rounds. On a noisy host the same code's CPU per request moved 1.6x between rounds of one run, and
     * the ratio of medians of one cell between runs from 0.60x to 0.83x where the round pairs' median stayed at
     * 0.70-0.71x (bench/main/results/2026-12-06-fast-path-floor).
     */
    public static String table(List<Measurement> all, List<Measurement.Cell> cells, List<String> connectors,
            List<String> connectorLabels) {
        StringBuilder sb = new StringBuilder();
        sb.append("| cell | metric |");
        for (String label : connectorLabels) {
            sb.append(' ').append(label).append(" median (min-max) |");
        }
        String ratioLabel = connectorLabels.get(1) + " / " + connectorLabels.get(0);
        sb.append(' ').append(ratioLabel).append(" | ").append(ratioLabel)
                .append(" per round, median (min-max) | stock NIO in baseline file |\n");
        sb.append("|---|---|").append("---:|".repeat(connectors.size())).append("---:|---:|---:|\n");
        for (Measurement.Cell cell : cells) {
            Map<String, Map<Integer, Map<String, Double>>> byRound = new LinkedHashMap<>();
            for (String connector : connectors) {
                Map<Integer, Map<String, Double>> rounds = new LinkedHashMap<>();
                for (Measurement m : all) {
                    if (m.cell().equals(cell) && m.connector().equals(connector)) {
                        rounds.put(m.round(), m.metrics());
                    }
                }
                byRound.put(connector, rounds);
            }
            List<Map<String, Double>> first = new ArrayList<>(byRound.get(connectors.get(0)).values());
            if (first.isEmpty()) {
                continue;
            }
            for (String metric : first.get(0).keySet()) {
                double[][] values = new double[connectors.size()][];
                boolean any = false;
                for (int i = 0; i < connectors.size(); i++) {
                    values[i] = byRound.get(connectors.get(i)).values().stream().mapToDouble(r -> r.get(metric))
                            .filter(v -> !Double.isNaN(v)).toArray();
                    any |= values[i].length > 0;
                }
                if (!any) {
                    continue; // e.g. syscall rows without perf
                }
                sb.append("| ").append(cell.label()).append(" | ").append(metric).append(" |");
                for (double[] v : values) {
                    sb.append(' ').append(summary(v)).append(" |");
                }
                double ratio = values.length > 1 && values[0].length > 0 && values[1].length > 0
                        ? median(values[1]) / median(values[0]) : Double.NaN;
                sb.append(' ').append(Double.isNaN(ratio) || Double.isInfinite(ratio) ? "" : format(ratio))
                        .append(" |");
                sb.append(' ').append(connectors.size() > 1
                        ? summary(roundRatios(byRound.get(connectors.get(0)), byRound.get(connectors.get(1)), metric))
                        : "").append(" |");
                double[] base = cell.close() ? null : BASELINE_NIO.get(cell.kb() + "@" + cell.concurrency());
                int bi = BASELINE_METRICS.indexOf(metric);
                sb.append(' ').append(base != null && bi >= 0 ? format(base[bi]) : "").append(" |\n");
            }
        }
        return sb.toString();
    }

    /** @return for each round both connectors measured, second / first of {@code metric} (finite ratios only) */
    static double[] roundRatios(Map<Integer, Map<String, Double>> first, Map<Integer, Map<String, Double>> second,
            String metric) {
        List<Double> ratios = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, Double>> e : first.entrySet()) {
            Map<String, Double> other = second.get(e.getKey());
            Double a = e.getValue().get(metric);
            Double b = other == null ? null : other.get(metric);
            if (a != null && b != null) {
                double r = b / a;
                if (!Double.isNaN(r) && !Double.isInfinite(r)) {
                    ratios.add(r);
                }
            }
        }
        return ratios.stream().mapToDouble(Double::doubleValue).toArray();
    }

    public static String csvHeader() {
        return "round,kb,concurrency,close,connector,requests,window_s,req_per_s,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,"
                + "cs,voluntary_cs,involuntary_cs,cs_per_req,cpu_us_per_req,read_per_req,write_per_req,"
                + "wakeup_per_req,futex_per_req,epoll_wait_per_req,epoll_ctl_per_req,errors,error_kinds,"
                + "reconnects,client_cpu_share,body_bytes,tomcat_cpu_share,server_cpu_busy_share";
    }

    public static String csvRow(Measurement m) {
        Map<String, Double> x = m.metrics();
        var c = m.client();
        var s = m.server();
        return String.join(",", Integer.toString(m.round()), m.cell().kb(), Integer.toString(m.cell().concurrency()),
                Boolean.toString(m.cell().close()), m.connector(), Long.toString(c.requests()), raw(c.windowNanos() / 1e9), raw(x.get("req/s")),
                raw(c.latencyMillis(50)), raw(c.latencyMillis(90)), raw(c.latencyMillis(99)),
                raw(c.latencyMillis(99.9)), raw(c.latency().getTotalCount() == 0 ? Double.NaN
                        : c.latency().getMaxValue() / 1e6),
                Long.toString(s.contextSwitches()), Long.toString(s.voluntarySwitches()),
                Long.toString(s.involuntarySwitches()), raw(x.get(Measurement.Metric.CS)),
                raw(x.get(Measurement.Metric.CPU)), raw(x.get("read/req")), raw(x.get("write/req")),
                raw(x.get("wakeup/req")), raw(x.get("futex/req")), raw(x.get("epoll_wait/req")),
                raw(x.get("epoll_ctl/req")), Long.toString(c.errorCount()),
                '"' + c.errorsText().replace("\"", "'") + '"', Long.toString(c.reconnects()),
                raw(c.clientCpuShare()), Long.toString(c.bodyBytes()), raw(x.get(Measurement.Metric.TOMCAT_CPU)),
                raw(x.get(Measurement.Metric.SERVER_CPU_BUSY)));
    }

    private static String raw(Double v) {
        return v == null || Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6g", v);
    }
}
