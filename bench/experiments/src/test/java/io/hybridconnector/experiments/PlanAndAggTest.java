package io.hybridconnector.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanAndAggTest {

    @Test
    void everyCellNamesOnlyVariantsItsPhaseStarts() {
        for (String profile : List.of("quick", "full")) {
            for (Plan.Phase p : Plan.of(profile).phases) {
                for (Plan.Cell c : p.cells()) {
                    for (String v : c.variants()) {
                        assertTrue(Variant.find(p.variants(), v).isPresent(), profile + " " + p.name() + " " + v);
                    }
                }
            }
        }
    }

    @Test
    void quickProfileFitsItsBudget() {
        // 8 minutes for the papers' phases, 3 for issue 14's fairness phases (FairnessPlanAndReportTest)
        assertTrue(Plan.of("quick").estimatedSeconds() < 11 * 60, "quick: " + Plan.of("quick").estimatedSeconds());
    }

    @Test
    void rotationMovesTheFirstVariantBackEachRound() {
        assertEquals(List.of("b", "c", "a"), Experiments.rotate(List.of("a", "b", "c"), 1));
        assertEquals(List.of("a", "b", "c"), Experiments.rotate(List.of("a", "b", "c"), 3));
    }

    @Test
    void medianMinMaxIgnoreNaN() {
        Agg.Stat s = Agg.Stat.of(List.of(3.0, Double.NaN, 1.0, 2.0));
        assertEquals(2.0, s.median());
        assertEquals(1.0, s.min());
        assertEquals(3.0, s.max());
        assertEquals(2.5, Agg.Stat.of(List.of(2.0, 3.0)).median());
        assertEquals("1.50 (1.00-2.00)", Agg.Stat.of(List.of(1.0, 2.0)).text());
    }

    @Test
    void rowsSurviveTheCsvRoundTrip(@TempDir Path dir) throws Exception {
        Row r = new Row().put("experiment", "writespin").put("condition", "rmem 4096").put("workload", "size 100 KB")
                .put("concurrency", 100).put("variant", "ours").put("rps", 1234.5).put("error_kinds", "{a=1, b=2}");
        Path f = dir.resolve("r.csv");
        Row.writeCsv(f, List.of(r));
        Row back = Row.readCsv(f).get(0);
        assertEquals(r.cellKey(), back.cellKey());
        assertEquals(1234.5, back.d("rps"));
        assertEquals("{a=1; b=2}", back.s("error_kinds"));
        assertTrue(Files.readString(f).startsWith("experiment,condition,workload,concurrency,variant,rps"));
    }

    @Test
    void clientReceiveBufferConditions() {
        assertEquals("4096 4096 4096", Plan.rmemValue(Plan.RMEM_SMALL));
        assertEquals("102400 102400 102400", Plan.rmemValue("rmem 102400"));
        assertEquals(Plan.RMEM_DEFAULT_VALUE, Plan.rmemValue(Plan.RMEM_DEFAULT));
    }
}
