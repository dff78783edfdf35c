package io.hybridconnector.experiments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What every section of report.md can ask of a run's rows: the rows and their medians ({@link Agg}), the output
 * directory for PNGs, the markdown written so far, the variants' names and order, and the lookups several sections
 * share. One subclass per section (a paper's table or figure, or one of our checks), so that a figure's code reads on
 * its own; {@link Report} runs them in order. Main thread.
 */
abstract class ReportSection {

    /** What the sections share: the run's rows, their medians, where PNGs go, and report.md as it grows. */
    record Run(List<Row> rows, Agg a, Path dir, StringBuilder md) {
    }

    static final List<String> SIZES = List.of("0.1", "10", "100");
    static final List<Integer> CONC = List.of(8, 100, 1000, 3200);
    static final Map<String, String> NAMES = new LinkedHashMap<>();

    static {
        NAMES.put("nio", "stock NIO (sTomcat-Async)");
        NAMES.put("nio2", "stock NIO2");
        NAMES.put("nio-vt", "stock NIO + virtual threads");
        NAMES.put("jetty", "Jetty 12");
        NAMES.put("ours", "ours, default (hybrid/hybrid)");
        NAMES.put("ours-direct", "ours, writeStrategy=direct");
        NAMES.put("ours-spin", "ours, writeStrategy=spin");
        NAMES.put("reactor", "ours reactor (sTomcat-Async-Fix)");
        NAMES.put("single", "ours single+direct (SingleT-Async)");
        NAMES.put("single-spin", "ours single+spin (NettyServer)");
        NAMES.put("sync", "ours sync (sTomcat-Sync)");
    }

    static String name(String v) {
        return NAMES.getOrDefault(v, v);
    }

    void p(String fmt, Object... args) {
        md.append(args.length == 0 ? fmt.replace("%%", "%") : String.format(Locale.ROOT, fmt, args)).append('\n');
    }

    boolean has(String experiment) {
        return rows.stream().anyMatch(r -> r.s("experiment").equals(experiment));
    }

    List<String> variantsOf(String experiment, String condition, String workload, int c) {
        List<String> vs = new ArrayList<>();
        for (Row r : rows) {
            if (r.s("experiment").equals(experiment) && r.s("condition").equals(condition)
                    && r.s("workload").equals(workload) && (int) r.d("concurrency") == c
                    && !vs.contains(r.s("variant"))) {
                vs.add(r.s("variant"));
            }
        }
        vs.sort((x, y) -> order(x) - order(y));
        return vs;
    }

    static int order(String v) {
        int i = new ArrayList<>(NAMES.keySet()).indexOf(v);
        return i < 0 ? 100 : i;
    }

    double med(String exp, String cond, String w, int c, String v, String metric) {
        return a.stat(exp, cond, w, c, v, metric).median();
    }

    /** One line: our default's CPU per request against the best peer's in a cell. */
    String peerVerdict(String exp, String cond, String w, int c) {
        double ours = a.stat(exp, cond, w, c, "ours", "cpu_us_per_req").median();
        String bestName = "-";
        double best = Double.NaN;
        for (String peer : List.of("nio", "nio2", "nio-vt", "jetty")) {
            double m = a.stat(exp, cond, w, c, peer, "cpu_us_per_req").median();
            if (!Double.isNaN(m) && (Double.isNaN(best) || m < best)) {
                best = m;
                bestName = peer;
            }
        }
        if (Double.isNaN(ours) || Double.isNaN(best)) {
            return "Ours vs the best peer on CPU/req: not measured.";
        }
        return String.format(Locale.ROOT, "Ours vs the best peer on CPU/req (issue 4): ours %s us, best peer %s %s us,"
                + " ratio %s -> %s.", Agg.num(ours), bestName, Agg.num(best), Agg.num(ours / best),
                ours <= best ? "ours wins" : ours <= best * 1.03 ? "tie (within 3 %)" : "ours LOSES");
    }

    /** Median of per-round ratios variant / nio for rows of the same round. */
    Agg.Stat ratioToNio(String exp, String cond, String w, int c, String v, String metric) {
        List<Double> ratios = new ArrayList<>();
        for (Row r : a.rows(exp, cond, w, c, v)) {
            for (Row n : a.rows(exp, cond, w, c, "nio")) {
                if (n.s("round").equals(r.s("round"))) {
                    ratios.add(r.d(metric) / n.d(metric));
                }
            }
        }
        return Agg.Stat.of(ratios);
    }

    String st(String exp, String cond, String w, int c, String v, String metric) {
        return a.stat(exp, cond, w, c, v, metric).text();
    }

    /** x = concurrency, y = median metric, for one variant across the matrix's concurrencies. */
    double[][] series(String exp, String cond, String w, String v, String metric) {
        return series(exp, cond, w, v, metric, x -> x);
    }

    double[][] series(String exp, String cond, String w, String v, String metric,
            Function<Double, Double> f) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int c : CONC) {
            Agg.Stat s = a.stat(exp, cond, w, c, v, metric);
            if (s.ok()) {
                xs.add((double) c);
                ys.add(f.apply(s.median()));
            }
        }
        return new double[][] { Agg.arr(xs), Agg.arr(ys) };
    }

    String medPair(String exp, String cond, String w, int c, String v, String m1, String m2) {
        return a.stat(exp, cond, w, c, v, m1).med() + " / " + a.stat(exp, cond, w, c, v, m2).med();
    }

    /** A ratio of medians; blank when the light load ran alone, "-" when stock NIO's figure was 0. */
    static String ratio(double r) {
        return Double.isNaN(r) ? "" : Double.isInfinite(r) ? "-" : Agg.num(r);
    }

    final Agg a;
    final List<Row> rows;
    final Path dir;
    final StringBuilder md;

    ReportSection(Run run) {
        this.rows = run.rows();
        this.a = run.a();
        this.dir = run.dir();
        this.md = run.md();
    }

    /** Appends this section to report.md (and writes its PNGs into {@link #dir}). */
    abstract void write() throws IOException;
}
