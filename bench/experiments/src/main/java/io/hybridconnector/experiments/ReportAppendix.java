package io.hybridconnector.experiments;

/** The appendix: every window in run order, with how busy CPU 0 was and how much of it other processes took. Main thread. */
final class ReportAppendix extends ReportSection {

    ReportAppendix(Run run) {
        super(run);
    }

    /** Every window in run order, with how busy CPU 0 was and how much of it other processes took. */
    @Override
    void write() {
        p("## Appendix: every measured window, in run order");
        p("");
        p("`CPU 0 busy`: /proc/stat busy share of the servers' CPU over the window; `others`: the part not used by"
                + " the measured server process (other people's builds and tests, and our idle server JVMs);"
                + " `probe ms`: time the load paused at the window's edges for perf, /proc and JMX.");
        p("");
        p("| # | phase | round | experiment | condition | workload | c | variant | req/s | CPU us/req | CPU 0 busy |"
                + " others | probe ms | errors |");
        p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        int i = 0;
        for (Row r : rows) {
            p("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", ++i, r.s("phase"),
                    r.s("round"), r.s("experiment"), r.s("condition"), r.s("workload"), r.s("concurrency"),
                    r.s("variant"), Agg.num(r.d("rps")), Agg.num(r.d("cpu_us_per_req")),
                    Agg.pct(r.d("server_cpu_busy")), Agg.pct(r.d("others_on_cpu0")), Agg.num(r.d("probe_ms")),
                    r.s("errors"));
        }
        p("");
    }
}
