package io.hybridconnector.experiments;

/** The 100 KB body made once (`/samples/fixed`): what the connectors cost without the servlet's work. Main thread. */
final class ReportConnectorOnly extends ReportSection {

    ReportConnectorOnly(Run run) {
        super(run);
    }

    // ---- seeds/000 tables ----

    @Override
    void write() {
        p("## The connectors alone: 100 KB made once (`/samples/fixed`), c=100, loopback");
        p("");
        String w = Plan.Workload.fixed("100").label();
        if (!has("connector")) {
            p("Not run.");
            p("");
            return;
        }
        p("The matrix's `/size` makes a fresh 100 KB body per request, most of a request's CPU and compiled by each"
                + " JVM in its own way; here the body is made once, so the CPU per request is the connector's and"
                + " Tomcat's (or Jetty's). Median (min-max); ratios per round to stock NIO.");
        p("");
        p("| variant | CPU us / request | req/s | write() / request | CPU / NIO, per-round ratios"
                + " | req/s / NIO, per-round ratios |");
        p("|---|---|---|---|---|---|");
        for (String v : variantsOf("connector", "loopback", w, 100)) {
            p("| %s | %s | %s | %s | %s | %s |", name(v), st("connector", "loopback", w, 100, v, "cpu_us_per_req"),
                    st("connector", "loopback", w, 100, v, "rps"),
                    st("connector", "loopback", w, 100, v, "write_per_req"),
                    ratioToNio("connector", "loopback", w, 100, v, "cpu_us_per_req").text(),
                    ratioToNio("connector", "loopback", w, 100, v, "rps").text());
        }
        p("");
    }
}
