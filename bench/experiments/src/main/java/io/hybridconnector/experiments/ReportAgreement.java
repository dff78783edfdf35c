package io.hybridconnector.experiments;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Whether our MBean's counters and perf's syscall counts agree, window by window. Main thread. */
final class ReportAgreement extends ReportSection {

    ReportAgreement(Run run) {
        super(run);
    }

    // ---- MBean vs perf / proc ----

    @Override
    void write() {
        p("## Our MBean against perf and /proc, same windows");
        p("");
        p("The HybridConnector MBean is read over JMX on both sides of each perf switch: the inner delta (read after"
                + " perf was switched on and before it was switched off) and the outer one (before on, after off)"
                + " bracket what perf counted. MBean = the middle of the bracket; ratio = MBean / perf, median"
                + " (min-max) over the rounds; `in bracket` = windows where perf's count lies between inner and outer."
                + " perf writes = write+writev+sendto minus 8-byte eventfd wake-ups; EAGAIN = write/writev returning"
                + " -11. Within 5 %% = ratio 0.95-1.05. Hand-offs are printed next to /proc's context switches (a"
                + " hand-off costs at least one switch; they are not the same event).");
        p("");
        p("| cell | variant | MBean WriteCalls / perf writes | in bracket | MBean ZeroByteWrites / perf EAGAIN | in bracket |"
                + " MBean Requests / client requests | MBean HandOffs per req | cs per req (/proc) | write-behind"
                + " hand-overs per req |");
        p("|---|---|---|---|---|---|---|---|---|---|");
        Map<String, List<Row>> byCell = new LinkedHashMap<>();
        for (Row r : rows) {
            if (!Double.isNaN(r.d("mbean_WriteCalls")) && r.d("perf_write") > 0) {
                byCell.computeIfAbsent(r.s("experiment") + "|" + r.s("condition") + "|" + r.s("workload") + "|"
                        + r.s("concurrency") + "|" + r.s("variant"), k -> new ArrayList<>()).add(r);
            }
        }
        int shown = 0;
        List<Double> allW = new ArrayList<>();
        List<Double> allZ = new ArrayList<>();
        int inW = 0;
        int inZ = 0;
        for (Map.Entry<String, List<Row>> e : byCell.entrySet()) {
            List<Row> list = e.getValue();
            Agg.Stat w = Agg.Stat.of(list.stream().map(r -> mid(r, "WriteCalls") / r.d("perf_write")).toList());
            List<Row> withEagain = list.stream().filter(r -> r.d("perf_eagain") > 20).toList();
            Agg.Stat z = Agg.Stat.of(withEagain.stream().map(r -> mid(r, "ZeroByteWrites") / r.d("perf_eagain"))
                    .toList());
            long bw = list.stream().filter(r -> inBracket(r, "WriteCalls", r.d("perf_write"))).count();
            long bz = withEagain.stream().filter(r -> inBracket(r, "ZeroByteWrites", r.d("perf_eagain"))).count();
            Agg.Stat q = Agg.Stat.of(list.stream().map(r -> mid(r, "Requests") / r.d("requests")).toList());
            Agg.Stat h = Agg.Stat.of(list.stream().map(r -> r.d("mbean_HandOffs") / r.d("requests")).toList());
            Agg.Stat cs = Agg.Stat.of(list.stream().map(r -> r.d("cs_per_req")).toList());
            Agg.Stat wb = Agg.Stat.of(list.stream().map(r -> r.d("mbean_WriteBehindHandOvers") / r.d("requests"))
                    .toList());
            list.forEach(r -> allW.add(mid(r, "WriteCalls") / r.d("perf_write")));
            withEagain.forEach(r -> allZ.add(mid(r, "ZeroByteWrites") / r.d("perf_eagain")));
            inW += bw;
            inZ += bz;
            String[] k = e.getKey().split("\\|");
            boolean interesting = k[0].equals("writespin") || k[0].equals("mix")
                    || (k[0].equals("matrix") && k[3].equals("100"));
            if (interesting) {
                p("| %s %s %s c=%s | %s | %s | %d/%d | %s | %d/%d | %s | %s | %s | %s |", k[0], k[1], k[2], k[3], k[4],
                        w.text(), bw, list.size(), z.text(), bz, withEagain.size(), q.text(), h.text(), cs.text(),
                        wb.text());
                shown++;
            }
        }
        p("");
        Agg.Stat w = Agg.Stat.of(allW);
        Agg.Stat z = Agg.Stat.of(allZ);
        long wIn = allW.stream().filter(x -> x >= 0.95 && x <= 1.05).count();
        long zIn = allZ.stream().filter(x -> x >= 0.95 && x <= 1.05).count();
        p("Over all %d windows with our MBean and perf (%d cells shown above): WriteCalls / perf writes median %s"
                + " (min %s, max %s), %d of %d windows within 5 %%, perf inside the bracket in %d; ZeroByteWrites /"
                + " perf EAGAIN (windows with > 20 EAGAIN) median %s (min %s, max %s), %d of %d within 5 %%, inside"
                + " the bracket in %d.", allW.size(), shown, Agg.num(w.median()), Agg.num(w.min()), Agg.num(w.max()),
                wIn, allW.size(), inW, Agg.num(z.median()), Agg.num(z.min()), Agg.num(z.max()), zIn, allZ.size(), inZ);
        p("");
    }

    /** Middle of the MBean bracket (inner and outer deltas); the inner delta alone when there is no outer one. */
    private static double mid(Row r, String attr) {
        double inner = r.d("mbean_" + attr);
        double outer = r.d("mbeanouter_" + attr);
        return Double.isNaN(outer) ? inner : (inner + outer) / 2;
    }

    private static boolean inBracket(Row r, String attr, double perf) {
        double inner = r.d("mbean_" + attr);
        double outer = r.d("mbeanouter_" + attr);
        return !Double.isNaN(outer) && perf >= inner * 0.99 && perf <= outer * 1.01;
    }
}
