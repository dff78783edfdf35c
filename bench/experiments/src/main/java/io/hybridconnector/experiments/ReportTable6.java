package io.hybridconnector.experiments;

import java.util.List;

/** seeds/000 Table 6 beside this run. Main thread. */
final class ReportTable6 extends ReportSection {

    ReportTable6(Run run) {
        super(run);
    }

    @Override
    void write() {
        p("## seeds/000 Table 6: write() calls per request, SingleT-Async");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper: 1 / 1 / 102 write() per request at 0.1 / 10 / 100 KB (16 KB send buffer, real network). Ours:"
                + " perf's socket write calls per request for `threadModel=single writeStrategy=direct`, c=100;"
                + " loopback has a large send buffer, so the netns rows show the paper's condition.");
        p("");
        p("| condition | 0.1 KB | 10 KB | 100 KB | 100 KB EAGAIN/req | paper |");
        p("|---|---|---|---|---|---|");
        p("| loopback | %s | %s | %s | %s | 1 / 1 / 102 |",
                st("matrix", "loopback", Plan.Workload.size("0.1").label(), 100, "single", "write_per_req"),
                st("matrix", "loopback", Plan.Workload.size("10").label(), 100, "single", "write_per_req"),
                st("matrix", "loopback", Plan.Workload.size("100").label(), 100, "single", "write_per_req"),
                st("matrix", "loopback", Plan.Workload.size("100").label(), 100, "single", "eagain_per_req"));
        for (String cond : List.of(Plan.RMEM_DEFAULT, Plan.RMEM_SMALL)) {
            String w = Plan.Workload.size("100").label();
            Agg.Stat wr = a.anyExperiment(cond, w, 100, "single", "write_per_req");
            if (wr.ok()) {
                p("| netns, client %s | - | - | %s | %s | |", cond, wr.text(),
                        a.anyExperiment(cond, w, 100, "single", "eagain_per_req").text());
            }
        }
        p("");
    }
}
