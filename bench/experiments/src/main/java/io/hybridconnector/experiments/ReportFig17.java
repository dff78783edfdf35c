package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;

/** seeds/000 Fig 17 beside this run, as a table and a PNG. Main thread. */
final class ReportFig17 extends ReportSection {

    ReportFig17(Run run) {
        super(run);
    }

    @Override
    void write() throws IOException {
        p("## seeds/000 Fig 17: 2 %% heavy / 98 %% light, c=100, 4 KB client window");
        p("");
        if (!has("mix")) {
            p("Not run.");
            p("");
            return;
        }
        p("Paper: HybridNetty best from 1 to 4 cores, with and without 5 ms latency. Here one server core, the 4 KB"
                + " window instead of latency; issue 3 asks ours >= 1.3x stock NIO.");
        p("");
        p("| server | req/s | / stock NIO (per round) | CPU us/req | write()/req | EAGAIN/req | futex/req | cs/req |");
        p("|---|---|---|---|---|---|---|---|");
        String w = Plan.Workload.mix(2).label();
        List<String> vs = variantsOf("mix", Plan.RMEM_SMALL, w, 100);
        List<Double> ys = new ArrayList<>();
        for (String v : vs) {
            p("| %s | %s | %s | %s | %s | %s | %s | %s |", name(v), st("mix", Plan.RMEM_SMALL, w, 100, v, "rps"),
                    ratioToNio("mix", Plan.RMEM_SMALL, w, 100, v, "rps").text(),
                    st("mix", Plan.RMEM_SMALL, w, 100, v, "cpu_us_per_req"),
                    st("mix", Plan.RMEM_SMALL, w, 100, v, "write_per_req"),
                    st("mix", Plan.RMEM_SMALL, w, 100, v, "eagain_per_req"),
                    st("mix", Plan.RMEM_SMALL, w, 100, v, "futex_per_req"),
                    st("mix", Plan.RMEM_SMALL, w, 100, v, "cs_per_req"));
            ys.add(a.stat("mix", Plan.RMEM_SMALL, w, 100, v, "rps").median());
        }
        p("");
        p(peerVerdict("mix", Plan.RMEM_SMALL, w, 100));
        Charts.bars(dir.resolve("fig17.png"), "Fig 17: 2% heavy / 98% light, c=100, 4 KB window", "req/s", vs,
                Map.of("req/s", ys));
        p("");
        p("![fig17](fig17.png)");
        p("");
    }
}
