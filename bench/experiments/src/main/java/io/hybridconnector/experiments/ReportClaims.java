package io.hybridconnector.experiments;

import java.util.ArrayList;
import java.util.List;

/** The papers' claims, each checked against this run's medians in one line. Main thread. */
final class ReportClaims extends ReportSection {

    ReportClaims(Run run) {
        super(run);
    }

    /** The papers' claims, each checked against this run's medians in one line. */
    @Override
    void write() {
        p("## Summary: the papers' claims against this run");
        p("");
        p("Computed from the medians below (req/s claims are weak on this shared machine; counts per request are not).");
        p("");
        String s01 = Plan.Workload.size("0.1").label();
        String s10 = Plan.Workload.size("10").label();
        String s100 = Plan.Workload.size("100").label();
        if (has("matrix")) {
            int more = 0;
            int cells = 0;
            for (String kb : SIZES) {
                for (int c : List.of(8, 100, 1000)) {
                    double n = med("matrix", "loopback", Plan.Workload.size(kb).label(), c, "nio", "cs_per_req");
                    double y = med("matrix", "loopback", Plan.Workload.size(kb).label(), c, "sync", "cs_per_req");
                    if (!Double.isNaN(n) && !Double.isNaN(y)) {
                        cells++;
                        more += n > y ? 1 : 0;
                    }
                }
            }
            p("- Table 2 (async switches more than sync): stock NIO has more context switches per request than"
                    + " thread-per-connection in %d of %d cells -> %s.", more, cells,
                    more * 2 > cells ? "agrees" : "differs (modern NIO batches hand-offs; /proc also counts the sync"
                            + " threads' blocking reads and preemption, which the paper left out)");
            p("- Table 3 (switches per request at 0.1 KB, c=100; paper 4 / 2 / 0 / 0): NIO %s, reactor %s, sync %s,"
                    + " single %s, ours %s.", Agg.num(med("matrix", "loopback", s01, 100, "nio", "cs_per_req")),
                    Agg.num(med("matrix", "loopback", s01, 100, "reactor", "cs_per_req")),
                    Agg.num(med("matrix", "loopback", s01, 100, "sync", "cs_per_req")),
                    Agg.num(med("matrix", "loopback", s01, 100, "single", "cs_per_req")),
                    Agg.num(med("matrix", "loopback", s01, 100, "ours", "cs_per_req")));
            double f01 = med("matrix", "loopback", s01, 100, "single-spin", "rps")
                    / med("matrix", "loopback", s01, 100, "single", "rps");
            p("- Fig 14 at 0.1 KB, c=100 (NettyServer -17 %% vs SingleT-Async): NettyServer / SingleT-Async req/s ="
                    + " %s; CPU us/req %s vs %s.", Agg.num(f01),
                    Agg.num(med("matrix", "loopback", s01, 100, "single-spin", "cpu_us_per_req")),
                    Agg.num(med("matrix", "loopback", s01, 100, "single", "cpu_us_per_req")));
            for (String kb : List.of("10", "100")) {
                String w = kb.equals("10") ? s10 : s100;
                double lo = med("matrix", "loopback", w, 8, "sync", "rps") / med("matrix", "loopback", w, 8, "nio", "rps");
                double hi = med("matrix", "loopback", w, 1000, "sync", "rps")
                        / med("matrix", "loopback", w, 1000, "nio", "rps");
                p("- Fig 4 at %s KB (sync ahead at low concurrency, behind at high): sync/NIO req/s at c=8 %s, at"
                        + " c=1000 %s.", kb, Agg.num(lo), Agg.num(hi));
            }
        }
        String w = s100;
        if (has("writespin")) {
            p("- Table 6 (SingleT-Async, 100 KB: 102 write() per request): %s per request with the 4 KB window, %s"
                    + " with the default one, %s on loopback.",
                    Agg.num(a.anyExperiment(Plan.RMEM_SMALL, w, 100, "single", "write_per_req").median()),
                    Agg.num(a.anyExperiment(Plan.RMEM_DEFAULT, w, 100, "single", "write_per_req").median()),
                    Agg.num(med("matrix", "loopback", w, 100, "single", "write_per_req")));
            double single4 = a.anyExperiment("rmem 4096", w, 100, "single", "rps").median();
            double single100 = a.anyExperiment("rmem 102400", w, 100, "single", "rps").median();
            double sync4 = a.anyExperiment("rmem 4096", w, 100, "sync", "rps").median();
            double sync100 = a.anyExperiment("rmem 102400", w, 100, "sync", "rps").median();
            p("- Fig 12 (SingleT-Async +170 %% from a 4 KB to a 100 KB window, sync about flat): SingleT-Async x%s,"
                    + " sync x%s.", Agg.num(single100 / single4), Agg.num(sync100 / sync4));
            double netty = a.anyExperiment(Plan.RMEM_SMALL, w, 100, "single-spin", "rps").median();
            p("- Fig 14 at 100 KB with write-spin (NettyServer +27 %% over SingleT-Async): NettyServer / SingleT-Async"
                    + " req/s = %s with the 4 KB window.", Agg.num(netty
                    / a.anyExperiment(Plan.RMEM_SMALL, w, 100, "single", "rps").median()));
            p("- Write-spin, 4 KB window, CPU us/req: ours %s, ours-direct %s, ours-spin %s, stock NIO %s, Jetty %s;"
                    + " EAGAIN per request: ours %s, direct %s, spin %s, NIO %s.",
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "ours", "cpu_us_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "ours-direct", "cpu_us_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "ours-spin", "cpu_us_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "nio", "cpu_us_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "jetty", "cpu_us_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "ours", "eagain_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "ours-direct", "eagain_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "ours-spin", "eagain_per_req")),
                    Agg.num(med("writespin", Plan.RMEM_SMALL, w, 100, "nio", "eagain_per_req")));
        }
        if (has("heavyshare") || has("mix")) {
            int atLeast = 0;
            int n = 0;
            for (String cond : List.of(Plan.RMEM_SMALL, Plan.RMEM_DEFAULT)) {
                for (int pct : List.of(0, 2, 10, 20, 50, 100)) {
                    String mw = Plan.Workload.mix(pct).label();
                    double ours = a.anyExperiment(cond, mw, 100, "ours", "rps").median();
                    for (String v : List.of("single", "single-spin")) {
                        double o = a.anyExperiment(cond, mw, 100, v, "rps").median();
                        if (!Double.isNaN(ours) && !Double.isNaN(o)) {
                            n++;
                            atLeast += ours >= o ? 1 : 0;
                        }
                    }
                }
            }
            p("- Fig 16 (HybridNetty at or above SingleT-Async and NettyServer at every heavy share): ours at or above"
                    + " in %d of %d comparisons (req/s).", atLeast, n);
            p("- Fig 17 / issue 3 (2 %% heavy, 4 KB window: ours >= 1.3x stock NIO): x%s.",
                    Agg.num(ratioToNio("mix", Plan.RMEM_SMALL, Plan.Workload.mix(2).label(), 100, "ours", "rps")
                            .median()));
        }
        if (has("threads")) {
            Row any = rows.stream().filter(r -> r.s("experiment").equals("threads")).findFirst().orElseThrow();
            int c = (int) any.d("concurrency");
            String tw = any.s("workload");
            List<Double> ours = new ArrayList<>();
            List<Double> sync = new ArrayList<>();
            for (String v : variantsOf("threads", "loopback", tw, c)) {
                (v.startsWith("ours-") ? ours : sync).add(a.stat("threads", "loopback", tw, c, v, "rps").median());
            }
            Agg.Stat o = Agg.Stat.of(ours);
            Agg.Stat y = Agg.Stat.of(sync);
            p("- seeds/004 Fig 5 (flat from 16 to 2048 threads): ours req/s from %s to %s across thread counts (max/min"
                    + " %s); the thread-per-connection grid from %s to %s.", Agg.num(o.min()), Agg.num(o.max()),
                    Agg.num(o.max() / o.min()), Agg.num(y.min()), Agg.num(y.max()));
        }
        p("");
    }
}
