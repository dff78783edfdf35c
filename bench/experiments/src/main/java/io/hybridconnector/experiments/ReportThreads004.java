package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/004 Fig 5 (thread counts) beside this run. Main thread. */
final class ReportThreads004 extends ReportSection {

    ReportThreads004(Run run) {
        super(run);
    }

    @Override
    void write() throws IOException {
        p("## seeds/004 Fig 5: throughput vs threads, thinking clients with two connections each");
        p("");
        if (!has("threads")) {
            p("Not run.");
            p("");
            return;
        }
        Row any = rows.stream().filter(r -> r.s("experiment").equals("threads")).findFirst().orElseThrow();
        int c = (int) any.d("concurrency");
        String w = any.s("workload");
        p("Paper: the hybrid connector's throughput and response time are flat from 16 to 2048 threads (2000"
                + " SPECweb2005 clients, two connections each, think time); the multi-threaded connector needs at least"
                + " one thread per connection and an infinite keep-alive timeout (its Figs 1-3). Here: %d connections"
                + " (%d clients x 2), each pausing an exponentially distributed think time (mean %s ms) between a"
                + " response and its next request, %s, loopback.", c, c / 2, any.s("think_ms"), w);
        p("");
        p("| server | req/s | p50 ms | p99 ms | CPU us/req | cs/req | errors | reconnects |");
        p("|---|---|---|---|---|---|---|---|");
        List<String> vs = variantsOf("threads", "loopback", w, c);
        Map<String, double[][]> s = new LinkedHashMap<>();
        List<Double> ox = new ArrayList<>();
        List<Double> oy = new ArrayList<>();
        Map<String, List<double[]>> syncByKat = new LinkedHashMap<>();
        for (String v : vs) {
            p("| %s | %s | %s | %s | %s | %s | %s | %s |", v, st("threads", "loopback", w, c, v, "rps"),
                    st("threads", "loopback", w, c, v, "p50_ms"), st("threads", "loopback", w, c, v, "p99_ms"),
                    st("threads", "loopback", w, c, v, "cpu_us_per_req"), st("threads", "loopback", w, c, v, "cs_per_req"),
                    st("threads", "loopback", w, c, v, "errors"), st("threads", "loopback", w, c, v, "reconnects"));
            double rps = a.stat("threads", "loopback", w, c, v, "rps").median();
            if (v.startsWith("ours-t")) {
                ox.add(Double.parseDouble(v.substring("ours-t".length())));
                oy.add(rps);
            } else if (v.startsWith("sync-t")) {
                String[] parts = v.substring("sync-t".length()).split("-k");
                syncByKat.computeIfAbsent("thread/conn, keepAlive " + parts[1] + (parts[1].equals("inf") ? "" : " ms"),
                        k -> new ArrayList<>()).add(new double[] { Double.parseDouble(parts[0]), rps });
            }
        }
        s.put("ours (hybrid)", new double[][] { Agg.arr(ox), Agg.arr(oy) });
        syncByKat.forEach((k, pts) -> {
            pts.sort((x, y) -> Double.compare(x[0], y[0]));
            s.put(k, new double[][] { pts.stream().mapToDouble(x -> x[0]).toArray(),
                    pts.stream().mapToDouble(x -> x[1]).toArray() });
        });
        Charts.lines(dir.resolve("fig5-004.png"), "seeds/004 Fig 5: req/s vs threads", "threads (log)", "req/s", true,
                s);
        p("");
        p("![fig5-004](fig5-004.png)");
        p("");
    }
}
