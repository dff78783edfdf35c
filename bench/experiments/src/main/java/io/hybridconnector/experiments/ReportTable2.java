package io.hybridconnector.experiments;

import java.util.ArrayList;
import java.util.List;

/** seeds/000 Table 2 beside this run. Main thread. */
final class ReportTable2 extends ReportSection {

    ReportTable2(Run run) {
        super(run);
    }

    @Override
    void write() {
        p("## seeds/000 Table 2: context switches (x1000 per second), async vs sync");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("TomcatAsync = stock NIO, TomcatSync = our `threadModel=sync`. cs/s = cs/req x req/s per window. Paper: Tomcat"
                + " 8 vs Tomcat 7, 1 core, JMeter clients on other machines. The paper's c=3200 rows are compared with our"
                + " c=1000 (c=3200 is not run: see Plan).");
        p("");
        p("| c | KB | async (nio) x1000/s | sync x1000/s | ours x1000/s | nio cs/req | sync cs/req | ours cs/req |"
                + " paper async | paper sync |");
        p("|---|---|---|---|---|---|---|---|---|---|");
        for (int c : List.of(8, 100, 1000, 3200)) {
            for (String kb : SIZES) {
                String w = Plan.Workload.size(kb).label();
                if (!a.stat("matrix", "loopback", w, c, "nio", "rps").ok()) {
                    continue;
                }
                double[] paper = Baseline.TABLE2.get(kb + "|" + (c == 1000 ? 3200 : c));
                p("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |", c, kb, csps(w, c, "nio"), csps(w, c, "sync"),
                        csps(w, c, "ours"), st("matrix", "loopback", w, c, "nio", "cs_per_req"),
                        st("matrix", "loopback", w, c, "sync", "cs_per_req"),
                        st("matrix", "loopback", w, c, "ours", "cs_per_req"),
                        paper == null ? "-" : Agg.num(paper[0]) + (c == 1000 ? " (c=3200)" : ""),
                        paper == null ? "-" : Agg.num(paper[1]));
            }
        }
        p("");
    }

    private String csps(String w, int c, String v) {
        List<Double> x = new ArrayList<>();
        for (Row r : a.rows("matrix", "loopback", w, c, v)) {
            x.add(r.d("cs_per_req") * r.d("rps") / 1000);
        }
        return Agg.Stat.of(x).text();
    }
}
