package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/000 Fig 16 beside this run, as a table and a PNG. Main thread. */
final class ReportFig16 extends ReportSection {

    ReportFig16(Run run) {
        super(run);
    }

    @Override
    void write() throws IOException {
        p("## seeds/000 Fig 16: share of heavy (100 KB) requests among light (0.1 KB), c=100, normalised to ours");
        p("");
        if (!has("heavyshare") && !has("mix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper: HybridNetty (= 1.0) is at or above SingleT-Async and NettyServer at every heavy share, with and"
                + " without latency. Ours = our default (hybrid) in the role of HybridNetty. Values: req/s of the"
                + " variant / req/s of ours (medians); CPU us/req in brackets.");
        p("");
        for (String cond : List.of(Plan.RMEM_SMALL, Plan.RMEM_DEFAULT)) {
            Map<String, double[][]> s = new LinkedHashMap<>();
            List<Integer> shares = new ArrayList<>();
            for (int pct : List.of(0, 2, 10, 20, 50, 100)) {
                if (a.anyExperiment(cond, Plan.Workload.mix(pct).label(), 100, "ours", "rps").ok()) {
                    shares.add(pct);
                }
            }
            if (shares.isEmpty()) {
                continue;
            }
            p("client %s:", cond);
            p("");
            p("| heavy %% | ours req/s | SingleT-Async / ours | NettyServer / ours |");
            p("|---|---|---|---|");
            for (String v : List.of("ours", "single", "single-spin")) {
                List<Double> xs = new ArrayList<>();
                List<Double> ys = new ArrayList<>();
                for (int pct : shares) {
                    String w = Plan.Workload.mix(pct).label();
                    double ours = a.anyExperiment(cond, w, 100, "ours", "rps").median();
                    xs.add((double) pct);
                    ys.add(a.anyExperiment(cond, w, 100, v, "rps").median() / ours);
                }
                s.put(name(v), new double[][] { Agg.arr(xs), Agg.arr(ys) });
            }
            for (int pct : shares) {
                String w = Plan.Workload.mix(pct).label();
                double ours = a.anyExperiment(cond, w, 100, "ours", "rps").median();
                p("| %d | %s (%s us) | %s (%s us) | %s (%s us) |", pct, Agg.num(ours),
                        a.anyExperiment(cond, w, 100, "ours", "cpu_us_per_req").med(),
                        Agg.num(a.anyExperiment(cond, w, 100, "single", "rps").median() / ours),
                        a.anyExperiment(cond, w, 100, "single", "cpu_us_per_req").med(),
                        Agg.num(a.anyExperiment(cond, w, 100, "single-spin", "rps").median() / ours),
                        a.anyExperiment(cond, w, 100, "single-spin", "cpu_us_per_req").med());
            }
            p("");
            String f = "fig16-" + (cond.equals(Plan.RMEM_SMALL) ? "4k" : "default") + ".png";
            Charts.lines(dir.resolve(f), "Fig 16: normalised req/s, client " + cond, "heavy requests (%)",
                    "req/s / ours", false, s);
            p("![%s](%s)", f, f);
            p("");
        }
    }
}
