package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** The size x concurrency matrix on loopback: every peer and variant per cell, and its PNG plots. Main thread. */
final class ReportMatrix extends ReportSection {

    ReportMatrix(Run run) {
        super(run);
    }

    // ---- the matrix ----

    @Override
    void write() throws IOException {
        p("## The matrix: 0.1 / 10 / 100 KB x c = 8 / 100 / 1000, every peer (loopback)");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("CPU us per request, median (min-max). **Bold**: the lowest in the cell. Baseline = stock connectors on"
                + " this machine before the project (anchors, wrk, Temurin 25; our stock peers run on the JDK named"
                + " above).");
        p("");
        List<String> cells = new ArrayList<>();
        List<int[]> idx = new ArrayList<>();
        for (String kb : SIZES) {
            for (int c : CONC) {
                if (!variantsOf("matrix", "loopback", Plan.Workload.size(kb).label(), c).isEmpty()) {
                    cells.add(kb + " KB c=" + c);
                    idx.add(new int[] { SIZES.indexOf(kb), c });
                }
            }
        }
        List<String> vs = new ArrayList<>();
        rows.stream().filter(r -> r.s("experiment").equals("matrix")).map(r -> r.s("variant")).distinct()
                .sorted((x, y) -> order(x) - order(y)).forEach(vs::add);
        for (String metric : List.of("cpu_us_per_req", "cs_per_req", "rps", "write_per_req", "futex_per_req",
                "epoll_ctl_per_req", "read_per_req")) {
            p("### %s", switch (metric) {
                case "cpu_us_per_req" -> "CPU us / request";
                case "cs_per_req" -> "context switches / request";
                case "rps" -> "req/s (noisy: shared machine)";
                case "write_per_req" -> "socket write() calls / request";
                case "futex_per_req" -> "futex calls / request";
                case "epoll_ctl_per_req" -> "epoll_ctl calls / request";
                default -> "read() calls / request";
            });
            p("");
            StringBuilder h = new StringBuilder("| variant |");
            StringBuilder s = new StringBuilder("|---|");
            for (String c : cells) {
                h.append(' ').append(c).append(" |");
                s.append("---|");
            }
            p(h.toString());
            p(s.toString());
            boolean lowerBetter = !metric.equals("rps");
            for (String v : vs) {
                StringBuilder line = new StringBuilder("| " + name(v) + " |");
                for (int[] i : idx) {
                    String w = Plan.Workload.size(SIZES.get(i[0])).label();
                    Agg.Stat stat = a.stat("matrix", "loopback", w, i[1], v, metric);
                    double best = Double.NaN;
                    for (String o : vs) {
                        double m = a.stat("matrix", "loopback", w, i[1], o, metric).median();
                        if (!Double.isNaN(m) && (Double.isNaN(best) || (lowerBetter ? m < best : m > best))) {
                            best = m;
                        }
                    }
                    String t = stat.text();
                    line.append(' ').append(stat.ok() && stat.median() == best ? "**" + t + "**" : t).append(" |");
                }
                p(line.toString());
            }
            if (metric.equals("cpu_us_per_req") || metric.equals("cs_per_req")) {
                StringBuilder line = new StringBuilder("| baseline stock NIO (anchors) |");
                for (int[] i : idx) {
                    double[] b = Baseline.MATRIX.get("nio|" + SIZES.get(i[0]) + "|" + i[1]);
                    line.append(' ').append(b == null ? "-" : Agg.num(b[metric.equals("cs_per_req") ? 0 : 1]))
                            .append(" |");
                }
                p(line.toString());
            }
            p("");
        }
        // verdict: ours default vs every peer on CPU/req
        p("### Does our default beat every peer on CPU per request? (issue 4)");
        p("");
        p("Peers: stock NIO, NIO2, NIO + virtual threads, Jetty 12. Per cell: ours / best peer (median CPU us/req).");
        p("");
        p("| cell | ours | best peer | ratio | verdict |");
        p("|---|---|---|---|---|");
        for (int[] i : idx) {
            String w = Plan.Workload.size(SIZES.get(i[0])).label();
            double ours = a.stat("matrix", "loopback", w, i[1], "ours", "cpu_us_per_req").median();
            String bestName = "-";
            double best = Double.NaN;
            for (String peer : List.of("nio", "nio2", "nio-vt", "jetty")) {
                double m = a.stat("matrix", "loopback", w, i[1], peer, "cpu_us_per_req").median();
                if (!Double.isNaN(m) && (Double.isNaN(best) || m < best)) {
                    best = m;
                    bestName = peer;
                }
            }
            if (Double.isNaN(ours) || Double.isNaN(best)) {
                continue;
            }
            p("| %s KB c=%d | %s | %s %s | %s | %s |", SIZES.get(i[0]), i[1], Agg.num(ours), bestName, Agg.num(best),
                    Agg.num(ours / best), ours <= best ? "wins" : ours <= best * 1.03 ? "tie (within 3 %)" : "LOSES");
        }
        p("");
        for (String kb : SIZES) {
            String w = Plan.Workload.size(kb).label();
            Map<String, double[][]> cpu = new LinkedHashMap<>();
            for (String v : vs) {
                cpu.put(v, series("matrix", "loopback", w, v, "cpu_us_per_req"));
            }
            String f = "matrix-cpu-" + kb + "kb.png";
            Charts.lines(dir.resolve(f), "CPU per request, " + kb + " KB (loopback)", "concurrency (log)", "us/req",
                    true, cpu);
            p("![%s](%s)", f, f);
        }
        p("");
    }
}
