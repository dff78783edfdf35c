package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/000 Fig 4 beside this run, as a table and a PNG. Main thread. */
final class ReportFig4 extends ReportSection {

    ReportFig4(Run run) {
        super(run);
    }

    // ---- seeds/000 figures ----

    @Override
    void write() throws IOException {
        p("## seeds/000 Fig 4: sync/async crossover (req/s vs concurrency)");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper: TomcatSync beats TomcatAsync below a crossover concurrency that grows with the response size (64 at"
                + " 10 KB, 1600 at 100 KB). Here: stock NIO vs `threadModel=sync`, req/s and CPU us/req medians.");
        p("");
        p("| KB | c | nio req/s | sync req/s | sync/nio | nio CPU us/req | sync CPU us/req |");
        p("|---|---|---|---|---|---|---|");
        for (String kb : SIZES) {
            String w = Plan.Workload.size(kb).label();
            Map<String, double[][]> s = new LinkedHashMap<>();
            for (int c : CONC) {
                Agg.Stat n = a.stat("matrix", "loopback", w, c, "nio", "rps");
                Agg.Stat y = a.stat("matrix", "loopback", w, c, "sync", "rps");
                if (n.ok() && y.ok()) {
                    p("| %s | %d | %s | %s | %s | %s | %s |", kb, c, n.text(), y.text(), Agg.num(y.median() / n.median()),
                            st("matrix", "loopback", w, c, "nio", "cpu_us_per_req"),
                            st("matrix", "loopback", w, c, "sync", "cpu_us_per_req"));
                }
            }
            for (String v : List.of("nio", "sync", "ours")) {
                s.put(name(v), series("matrix", "loopback", w, v, "rps"));
            }
            Charts.lines(dir.resolve("fig4-" + kb + "kb.png"), "Fig 4: " + kb + " KB, sync vs async", "concurrency (log)",
                    "req/s", true, s);
        }
        p("");
        p("![fig4](fig4-0.1kb.png) ![fig4](fig4-10kb.png) ![fig4](fig4-100kb.png)");
        p("");
    }
}
