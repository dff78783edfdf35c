package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/000 Fig 12 beside this run, as a table and a PNG. Main thread. */
final class ReportFig12 extends ReportSection {

    ReportFig12(Run run) {
        super(run);
    }

    @Override
    void write() throws IOException {
        p("## seeds/000 Fig 12: client receive buffer 4 KB to 100 KB (100 KB, c=100)");
        p("");
        if (!has("rmem") && !has("writespin")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper: SingleT-Async gains 170 %% req/s from a 4 KB to a 100 KB client receive buffer; sTomcat-Sync stays"
                + " about flat. Here the client namespace's `tcp_rmem` is fixed to the value (min = default = max).");
        p("");
        p("| server | 4 KB | 16 KB | 64 KB | 100 KB | 100 KB / 4 KB | CPU us/req 4 KB -> 100 KB | writes/req 4 KB ->"
                + " 100 KB |");
        p("|---|---|---|---|---|---|---|---|");
        String w = Plan.Workload.size("100").label();
        Map<String, double[][]> s = new LinkedHashMap<>();
        for (String v : List.of("single", "sync", "ours", "nio")) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            StringBuilder line = new StringBuilder("| " + name(v) + " |");
            double first = Double.NaN;
            double last = Double.NaN;
            for (int kb : List.of(4, 16, 64, 100)) {
                String cond = "rmem " + (kb == 100 ? 102400 : kb * 1024);
                Agg.Stat st = a.anyExperiment(cond, w, 100, v, "rps");
                line.append(' ').append(st.text()).append(" |");
                if (st.ok()) {
                    xs.add((double) kb);
                    ys.add(st.median());
                    first = Double.isNaN(first) ? st.median() : first;
                    last = kb == 100 ? st.median() : last;
                }
            }
            if (xs.isEmpty()) {
                continue;
            }
            line.append(' ').append(Agg.num(last / first)).append(" |");
            line.append(' ').append(a.anyExperiment("rmem 4096", w, 100, v, "cpu_us_per_req").med()).append(" -> ")
                    .append(a.anyExperiment("rmem 102400", w, 100, v, "cpu_us_per_req").med()).append(" |");
            line.append(' ').append(a.anyExperiment("rmem 4096", w, 100, v, "write_per_req").med()).append(" -> ")
                    .append(a.anyExperiment("rmem 102400", w, 100, v, "write_per_req").med()).append(" |");
            p(line.toString());
            s.put(name(v), new double[][] { Agg.arr(xs), Agg.arr(ys) });
        }
        Charts.lines(dir.resolve("fig12.png"), "Fig 12: 100 KB, c=100, 16 KB sndbuf", "client receive buffer (KB)",
                "req/s", false, s);
        p("");
        p("![fig12](fig12.png)");
        p("");
    }
}
