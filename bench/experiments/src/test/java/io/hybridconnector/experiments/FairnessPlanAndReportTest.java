package io.hybridconnector.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hybridconnector.bench.harness.load.Fairness;

/** Issue 14's fairness cell in the experiments: its two phases, their selection and budget, and its report section. */
class FairnessPlanAndReportTest {

    private static Plan.Phase phase(String profile, String name) {
        return Plan.of(profile).phases.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void oneCoreRunsEveryScenarioForStockNioOursAndThePeers() {
        for (String profile : List.of("quick", "full")) {
            Plan.Phase p = phase(profile, "fairness");
            assertEquals(1, p.serverCores());
            assertEquals("0", Experiments.serverCpus(p));
            assertEquals(Fairness.ALL, p.cells().stream().map(Plan.Cell::beside).toList());
            for (Plan.Cell c : p.cells()) {
                assertEquals(Plan.ONE_CORE, c.condition());
                assertEquals(Fairness.LIGHT_CONNECTIONS, c.concurrency());
                assertEquals(Fairness.LIGHT_PATH, c.workload().path());
                assertTrue(c.variants().containsAll(List.of("nio", "nio-vt", "jetty", "ours")), c.variants().toString());
            }
        }
    }

    @Test
    void twoCoresRunsTheIssuesTwoCoreRowsOnBothCpus() {
        Plan.Phase p = phase("quick", "fairness-2cores");
        assertEquals(2, p.serverCores());
        assertEquals(Experiments.SERVER_CPU + "," + Experiments.CLIENT_CPU, Experiments.serverCpus(p));
        List<String> names = p.cells().stream().map(c -> c.beside().name()).toList();
        for (Baseline.FairnessRow b : Baseline.FAIRNESS) {
            if (b.condition().equals(Plan.TWO_CORES)) {
                assertTrue(names.contains(b.scenario()), b.scenario());
            }
        }
        p.cells().forEach(c -> assertTrue(c.variants().containsAll(List.of("nio", "ours"))));
        assertEquals(Fairness.ALL.size(), phase("full", "fairness-2cores").cells().size());
    }

    @Test
    void theIssuesRowsNameScenariosOfTheMainJob() {
        for (Baseline.FairnessRow b : Baseline.FAIRNESS) {
            assertNotNull(Fairness.named(b.scenario()), b.scenario());
        }
    }

    @Test
    void fairnessSelectsBothPhasesAndNothingElse() {
        List<String> chosen = Plan.of("quick").phases.stream().filter(p -> p.selectedBy(List.of("fairness")))
                .map(Plan.Phase::name).toList();
        assertEquals(List.of("fairness", "fairness-2cores"), chosen);
        assertEquals(List.of("fairness-2cores"), Plan.of("quick").phases.stream()
                .filter(p -> p.selectedBy(List.of("fairness-2cores"))).map(Plan.Phase::name).toList());
        assertTrue(phase("quick", "loopback").selectedBy(null));
        assertFalse(phase("quick", "loopback").selectedBy(List.of("fairness")));
    }

    @Test
    void quickFairnessAddsAtMostThreeMinutes() {
        Plan quick = Plan.of("quick");
        double all = quick.estimatedSeconds();
        quick.phases.removeIf(p -> p.name().startsWith("fairness"));
        assertTrue(all - quick.estimatedSeconds() <= 180, "fairness in quick: " + (all - quick.estimatedSeconds()));
    }

    @Test
    void boundIsTheLargerOfTwentyPercentAndTwoMilliseconds() {
        ReportFairness.FairnessVerdict tight = ReportFairness.FairnessVerdict.of(5, 6.9, 1000, 960, 100, 95);
        assertEquals(7.0, tight.p99Bound(), 1e-9);
        assertEquals("yes", tight.verdict());
        assertEquals(24.0, ReportFairness.FairnessVerdict.of(20, 0, 1, 1, 1, 1).p99Bound(), 1e-9);
        assertEquals("**no**: p99, light req/s", ReportFairness.FairnessVerdict.of(5, 8, 1000, 900, 100, 95).verdict());
        assertEquals("**no**: heavy req/s", ReportFairness.FairnessVerdict.of(5, 5, 1000, 1000, 100, 80).verdict());
        assertEquals("yes", ReportFairness.FairnessVerdict.of(5, 5, 1000, 1000, Double.NaN, Double.NaN).verdict());
    }

    @Test
    void reportPlacesEachVariantBesideTheIssuesTable(@TempDir Path dir) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= 3; round++) {
            for (Fairness.Scenario s : Fairness.ALL) {
                for (String v : List.of("nio", "jetty", "ours")) {
                    rows.add(row(Plan.ONE_CORE, s, v, round));
                }
            }
            rows.add(row(Plan.TWO_CORES, Fairness.named("4 computing 20 ms"), "nio", round));
            rows.add(row(Plan.TWO_CORES, Fairness.named("4 computing 20 ms"), "ours", round));
        }
        Report.write(rows, Map.of("profile", "test"), dir, new PrintStream(OutputStream.nullOutputStream()));
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("## Fairness: 50 light connections beside heavy ones, 1 core and 2 cores"), md);
        assertTrue(md.contains("### Server on 1 core"));
        assertTrue(md.contains("### Server on 2 cores"));
        // ours, round r: p99 = 4 + r ms -> median 6 (5-7); light req/s 900 + r -> 902; hand-offs 20/s = 40 / 2 s
        assertTrue(md.contains("| 4 computing 20 ms (`/samples/compute?ms=20`) | ours, default (hybrid/hybrid) | 1.00 (1.00-1.00)"
                + " | 6.00 (5.00-7.00) | 30.0 (30.0-30.0) | 902 (901-903) | 51.0 (50.0-52.0) | 20.0 (10.0 / 0 / 5.00 / 5.00)"
                + " | 0 / 0 |"), md);
        assertTrue(md.contains("| 4 computing 20 ms | 1 core | 3.0 / 16 / **2.00 / 4.00** | 81 / 173 / **1.00 / 6.00**"
                + " | 17,020 / 565 / **802 / 902** | 137 / 49 / **41.0 / 51.0** |"), md);
        // rows the run did not measure stay with the issue's figures only
        assertTrue(md.contains("| 4 sleeping 20 ms | 2 cores | 0.53 / 2.6 / **- / -** |"), md);
        // 6 <= max(1.2 x 4, 4 + 2); 902 / 802 >= 0.95; 51 / 41 >= 0.9
        assertTrue(md.contains("| 4 computing 20 ms | 1 core | 6.00 / 6.00 | 1.12 | 1.24 | 3 | yes |"), md);
    }

    /** Made-up figures: stock NIO p99 4 ms, ours 4 + round; req/s apart by variant. */
    private static Row row(String cond, Fairness.Scenario s, String v, int round) {
        boolean ours = v.equals("ours");
        Row r = new Row().put("experiment", "fairness").put("condition", cond)
                .put("workload", Plan.Workload.beside(s).label()).put("concurrency", Fairness.LIGHT_CONNECTIONS)
                .put("variant", v).put("phase", cond.equals(Plan.ONE_CORE) ? "fairness" : "fairness-2cores")
                .put("round", round).put("window_s", 2.0).put("p50_ms", ours ? 1.0 : 2.0)
                .put("p99_ms", ours ? 4.0 + round : 4.0).put("max_ms", ours ? 30.0 : 10.0)
                .put("rps", (ours ? 900 : 800) + round).put("errors", 0).put("server_cpu_busy", 0.9)
                .put("others_on_cpu0", 0.1);
        if (s.connections() > 0) {
            r.put("heavy_rps", (ours ? 49 : 39) + round).put("heavy_errors", 0);
        }
        if (ours) {
            r.put("mbean_HandOffs", 40).put("mbean_StallHandOffs", 10 + 10 * (round - 1)).put("mbean_IoHandOffs", 0)
                    .put("mbean_PredictedHandOffs", 10).put("mbean_ComputedHandOffs", 10);
        }
        return r;
    }
}
