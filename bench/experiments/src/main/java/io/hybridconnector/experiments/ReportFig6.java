package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/000 Fig 6 beside this run, as a table and a PNG. Main thread. */
final class ReportFig6 extends ReportSection {

    ReportFig6(Run run) {
        super(run);
    }

    @Override
    void write() throws IOException {
        p("## seeds/000 Fig 6: the four server types (req/s and context switches per second)");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper at 0.1 KB, c=100 (Table 4): SingleT-Async 42K, sTomcat-Sync 35K, sTomcat-Async-Fix 27K, sTomcat-Async"
                + " 22K req/s; at 100 KB sTomcat-Sync is best below c=400.");
        p("");
        p("| KB | c | SingleT-Async | sTomcat-Sync | sTomcat-Async-Fix | sTomcat-Async (nio) | ours |");
        p("|---|---|---|---|---|---|---|");
        List<String> types = List.of("single", "sync", "reactor", "nio", "ours");
        for (String kb : SIZES) {
            String w = Plan.Workload.size(kb).label();
            Map<String, double[][]> rps = new LinkedHashMap<>();
            Map<String, double[][]> cs = new LinkedHashMap<>();
            for (int c : CONC) {
                if (!a.stat("matrix", "loopback", w, c, "single", "rps").ok()) {
                    continue;
                }
                StringBuilder line = new StringBuilder("| " + kb + " | " + c + " |");
                for (String v : types) {
                    line.append(' ').append(a.stat("matrix", "loopback", w, c, v, "rps").med()).append(" req/s, ")
                            .append(a.stat("matrix", "loopback", w, c, v, "cs_per_req").med()).append(" cs/req |");
                }
                p(line.toString());
            }
            for (String v : types) {
                rps.put(name(v), series("matrix", "loopback", w, v, "rps"));
                List<Double> xs = new ArrayList<>();
                List<Double> ys = new ArrayList<>();
                for (int c : CONC) {
                    List<Double> x = new ArrayList<>();
                    for (Row r : a.rows("matrix", "loopback", w, c, v)) {
                        x.add(r.d("cs_per_req") * r.d("rps"));
                    }
                    Agg.Stat st = Agg.Stat.of(x);
                    if (st.ok()) {
                        xs.add((double) c);
                        ys.add(st.median());
                    }
                }
                cs.put(name(v), new double[][] { Agg.arr(xs), Agg.arr(ys) });
            }
            Charts.lines(dir.resolve("fig6-rps-" + kb + "kb.png"), "Fig 6: req/s, " + kb + " KB", "concurrency (log)",
                    "req/s", true, rps);
            Charts.lines(dir.resolve("fig6-cs-" + kb + "kb.png"), "Fig 6: context switches/s, " + kb + " KB",
                    "concurrency (log)", "cs/s", true, cs);
        }
        p("");
        p("![fig6](fig6-rps-0.1kb.png) ![fig6](fig6-cs-0.1kb.png) ![fig6](fig6-rps-100kb.png)"
                + " ![fig6](fig6-cs-100kb.png)");
        p("");
    }
}
