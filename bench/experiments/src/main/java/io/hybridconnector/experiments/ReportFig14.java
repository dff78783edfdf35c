package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/000 Fig 14 beside this run, as a table and PNGs. Main thread. */
final class ReportFig14 extends ReportSection {

    ReportFig14(Run run) {
        super(run);
    }

    @Override
    void write() throws IOException {
        p("## seeds/000 Fig 14: NettyServer vs SingleT-Async vs sTomcat-Sync");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper (16 KB send buffer): at 100 KB, c=100 NettyServer +27 %% over SingleT-Async and +10 %% over"
                + " sTomcat-Sync; at 0.1 KB NettyServer -17 %% vs SingleT-Async (its write optimisation costs on small"
                + " responses). Here: loopback (no write-spin at any size: large send buffer), and the 4 KB-window"
                + " netns cell where the variants ran.");
        p("");
        p("| KB | c | NettyServer (single-spin) | SingleT-Async (single) | sTomcat-Sync | ours | NettyServer/SingleT |");
        p("|---|---|---|---|---|---|---|");
        for (String kb : SIZES) {
            String w = Plan.Workload.size(kb).label();
            Map<String, double[][]> s = new LinkedHashMap<>();
            for (int c : CONC) {
                Agg.Stat n = a.stat("matrix", "loopback", w, c, "single-spin", "rps");
                Agg.Stat si = a.stat("matrix", "loopback", w, c, "single", "rps");
                if (!n.ok()) {
                    continue;
                }
                p("| %s | %d | %s | %s | %s | %s | %s |", kb, c, n.text(), si.text(),
                        st("matrix", "loopback", w, c, "sync", "rps"), st("matrix", "loopback", w, c, "ours", "rps"),
                        Agg.num(n.median() / si.median()));
            }
            for (String v : List.of("single-spin", "single", "sync", "ours")) {
                s.put(name(v), series("matrix", "loopback", w, v, "rps"));
            }
            Charts.lines(dir.resolve("fig14-" + kb + "kb.png"), "Fig 14: " + kb + " KB (loopback)",
                    "concurrency (log)", "req/s", true, s);
        }
        String w100 = Plan.Workload.size("100").label();
        for (String cond : List.of(Plan.RMEM_SMALL, Plan.RMEM_DEFAULT)) {
            Agg.Stat n = a.anyExperiment(cond, w100, 100, "single-spin", "rps");
            Agg.Stat si = a.anyExperiment(cond, w100, 100, "single", "rps");
            if (n.ok() || si.ok()) {
                p("| 100, netns client %s | 100 | %s | %s | %s | %s | %s |", cond, n.text(), si.text(),
                        a.anyExperiment(cond, w100, 100, "sync", "rps").text(),
                        a.anyExperiment(cond, w100, 100, "ours", "rps").text(), Agg.num(n.median() / si.median()));
            }
        }
        p("");
        p("![fig14](fig14-0.1kb.png) ![fig14](fig14-10kb.png) ![fig14](fig14-100kb.png)");
        p("");
    }
}
