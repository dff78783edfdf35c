package io.hybridconnector.experiments;

import java.util.List;

/** seeds/000 Table 3 beside this run. Main thread. */
final class ReportTable3 extends ReportSection {

    ReportTable3(Run run) {
        super(run);
    }

    @Override
    void write() {
        p("## seeds/000 Table 3: context switches per request by server type");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Our /proc counts include every switch of the server process (the paper counts only reactor/worker"
                + " hand-offs; it says interrupts and preemption are not counted).");
        p("");
        p("| server type | paper | 0.1 KB c=8 | 0.1 KB c=100 | 0.1 KB c=1000 | 100 KB c=100 |");
        p("|---|---|---|---|---|---|");
        String s01 = Plan.Workload.size("0.1").label();
        String s100 = Plan.Workload.size("100").label();
        for (String v : List.of("nio", "reactor", "sync", "single", "ours", "nio2", "nio-vt", "jetty")) {
            if (!a.stat("matrix", "loopback", s01, 100, v, "cs_per_req").ok()) {
                continue;
            }
            p("| %s | %s | %s | %s | %s | %s |", name(v), Baseline.TABLE3.getOrDefault(v, "-"),
                    st("matrix", "loopback", s01, 8, v, "cs_per_req"), st("matrix", "loopback", s01, 100, v, "cs_per_req"),
                    st("matrix", "loopback", s01, 1000, v, "cs_per_req"),
                    st("matrix", "loopback", s100, 100, v, "cs_per_req"));
        }
        p("");
    }
}
