package io.hybridconnector.experiments;

import java.util.List;

/** seeds/000 Table 5 beside this run. Main thread. */
final class ReportTable5 extends ReportSection {

    ReportTable5(Run run) {
        super(run);
    }

    @Override
    void write() {
        p("## seeds/000 Table 5: user and system CPU, sTomcat-Sync vs SingleT-Async, c=100");
        p("");
        if (!has("matrix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Ours: user and system us per request from /proc/PID/stat (utime, stime), and user share of the two. Paper"
                + " (as printed): Sync 0.1 KB 35,000 req/s 55 %% user / 45 %% sys, 100 KB 590 req/s 80 / 20; SingleT"
                + " 0.1 KB 42,800 req/s 58 / 42, 100 KB 520 req/s 92 / 8 (its text reads the columns the other way"
                + " round). The paper's 100 KB runs had a 16 KB send buffer over a real network; loopback here has"
                + " none of that, so the netns rows (16 KB send buffer, default client window) are added.");
        p("");
        p("| server | condition | KB | req/s | user us/req | sys us/req | user share |");
        p("|---|---|---|---|---|---|---|");
        for (String v : List.of("sync", "single", "ours", "nio")) {
            for (String kb : SIZES) {
                String w = Plan.Workload.size(kb).label();
                userSys("matrix", "loopback", w, v, kb);
            }
            userSys("writespin", Plan.RMEM_DEFAULT, Plan.Workload.size("100").label(), v, "100");
        }
        p("");
    }

    private void userSys(String exp, String cond, String w, String v, String kb) {
        Agg.Stat rps = a.stat(exp, cond, w, 100, v, "rps");
        if (!rps.ok()) {
            return;
        }
        Agg.Stat u = a.stat(exp, cond, w, 100, v, "user_us_per_req");
        Agg.Stat s = a.stat(exp, cond, w, 100, v, "sys_us_per_req");
        p("| %s | %s | %s | %s | %s | %s | %s |", name(v), cond, kb, rps.text(), u.text(), s.text(),
                Agg.pct(u.median() / (u.median() + s.median())));
    }
}
