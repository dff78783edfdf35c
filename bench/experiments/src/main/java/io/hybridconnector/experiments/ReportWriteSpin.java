package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** Issue 3's write-spin cells (4 KB client window over veth): our write strategies beside the peers, with the done-when checks. Main thread. */
final class ReportWriteSpin extends ReportSection {

    ReportWriteSpin(Run run) {
        super(run);
    }

    // ---- issue 3: write-spin ----

    @Override
    void write() throws IOException {
        p("## Write-spin: 100 KB, c=100, 16 KB server send buffer, client window 4 KB vs default (issue 3)");
        p("");
        if (!has("writespin")) {
            p("Not run (the netns phase needs root, or was not selected).");
            p("");
            return;
        }
        for (String cond : List.of(Plan.RMEM_SMALL, Plan.RMEM_DEFAULT)) {
            p("### client `tcp_rmem` %s", cond.equals(Plan.RMEM_SMALL) ? "\"4096 4096 4096\" (4 KB window)"
                    : "default (\"" + Plan.RMEM_DEFAULT_VALUE + "\")");
            p("");
            p("| server | req/s | CPU us/req | write() calls/req | EAGAIN/req | futex/req | cs/req | others on CPU 0 |"
                    + " baseline (anchors): req/s, CPU us, writes, EAGAIN, futex, cs |");
            p("|---|---|---|---|---|---|---|---|---|");
            String w = Plan.Workload.size("100").label();
            for (String v : variantsOf("writespin", cond, w, 100)) {
                double[] b = Baseline.WRITESPIN.get(v + "|" + cond);
                p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |", name(v), st("writespin", cond, w, 100, v, "rps"),
                        st("writespin", cond, w, 100, v, "cpu_us_per_req"),
                        st("writespin", cond, w, 100, v, "write_per_req"),
                        st("writespin", cond, w, 100, v, "eagain_per_req"),
                        st("writespin", cond, w, 100, v, "futex_per_req"), st("writespin", cond, w, 100, v, "cs_per_req"),
                        Agg.pct(a.stat("writespin", cond, w, 100, v, "others_on_cpu0").median()),
                        b == null ? "" : Agg.num(b[0]) + ", " + Agg.num(b[1]) + ", " + Agg.num(b[2]) + ", "
                                + Agg.num(b[3]) + ", " + Agg.num(b[4]) + ", " + Agg.num(b[5]));
            }
            p("");
            p(peerVerdict("writespin", cond, w, 100));
            p("");
            // Done-when checks of issue 3, computed
            if (cond.equals(Plan.RMEM_SMALL)) {
                doneWhen(w, cond);
            }
            List<String> vs = variantsOf("writespin", cond, w, 100);
            Map<String, List<Double>> series = new LinkedHashMap<>();
            for (String m : List.of("cpu_us_per_req", "write_per_req", "eagain_per_req", "futex_per_req",
                    "cs_per_req")) {
                List<Double> ys = new ArrayList<>();
                for (String v : vs) {
                    double val = a.stat("writespin", cond, w, 100, v, m).median();
                    ys.add(m.equals("cpu_us_per_req") ? val / 100 : val);
                }
                series.put(m.equals("cpu_us_per_req") ? "CPU per req (100 us)" : m.replace("_per_req", " per req"),
                        ys);
            }
            String f = "writespin-" + (cond.equals(Plan.RMEM_SMALL) ? "4k" : "default") + ".png";
            Charts.bars(dir.resolve(f), "100 KB, c=100, 16 KB sndbuf, client " + cond, "per request", vs, series);
            p("![%s](%s)", f, f);
            p("");
        }
    }

    private void doneWhen(String w, String cond) {
        double nioCpu = a.stat("writespin", cond, w, 100, "nio", "cpu_us_per_req").median();
        double nioRps = a.stat("writespin", cond, w, 100, "nio", "rps").median();
        double jettyRps = a.stat("writespin", cond, w, 100, "jetty", "rps").median();
        double cpu = a.stat("writespin", cond, w, 100, "ours", "cpu_us_per_req").median();
        double rps = a.stat("writespin", cond, w, 100, "ours", "rps").median();
        double futex = a.stat("writespin", cond, w, 100, "ours", "futex_per_req").median();
        double eagain = a.stat("writespin", cond, w, 100, "ours", "eagain_per_req").median();
        Agg.Stat ratioCpu = ratioToNio("writespin", cond, w, 100, "ours", "cpu_us_per_req");
        Agg.Stat ratioRps = ratioToNio("writespin", cond, w, 100, "ours", "rps");
        p("Issue 3's Done-when, 4 KB window (ours = default variant; ratios are medians of per-round ratios to stock"
                + " NIO in the same round):");
        p("");
        p("- CPU/req <= 0.6x stock NIO: %s x (%s) -> %s", Agg.num(ratioCpu.median()), ratioCpu.text(),
                ratioCpu.median() <= 0.6 ? "met" : "NOT met");
        p("- req/s >= 1.3x stock NIO: %s x (%s) -> %s; >= Jetty: %s vs %s -> %s", Agg.num(ratioRps.median()),
                ratioRps.text(), ratioRps.median() >= 1.3 ? "met" : "NOT met", Agg.num(rps), Agg.num(jettyRps),
                rps >= jettyRps ? "met" : "NOT met");
        p("- <= 1 futex/req: %s -> %s", Agg.num(futex), futex <= 1 ? "met" : "NOT met");
        p("- EAGAIN/req: %s (stock NIO %s)", Agg.num(eagain),
                Agg.num(a.stat("writespin", cond, w, 100, "nio", "eagain_per_req").median()));
        double hyb = cpu;
        double dir = a.stat("writespin", cond, w, 100, "ours-direct", "cpu_us_per_req").median();
        double spin = a.stat("writespin", cond, w, 100, "ours-spin", "cpu_us_per_req").median();
        p("- hybrid beats direct and spin at 100 KB / 4 KB window (CPU us/req): hybrid %s, direct %s, spin %s -> %s",
                Agg.num(hyb), Agg.num(dir), Agg.num(spin), hyb < dir && hyb < spin ? "met" : "NOT met");
        p("- (stock NIO here: %s req/s, %s us/req)", Agg.num(nioRps), Agg.num(nioCpu));
        p("");
    }
}
