package io.hybridconnector.rubbos.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.hybridconnector.bench.harness.measure.ProcessUsage;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.client.workload.State;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's mix check and its output directory. The read/write 3-tier results of 2026-11-23 held two
 * browse-only CSVs (2000 users) left in the reused output directory by the sweep before; pooled with the
 * read/write points they made the writes look half as frequent as FACTS.md 3.8 says.
 */
class Fig3ReportTest {

    @Test
    void aSweepStartsWithoutThePointFilesOfAnEarlierSweep(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("stock-2000users.csv"), "stale");
        Files.writeString(dir.resolve("hybrid-300users.csv"), "stale");
        Files.writeString(dir.resolve("summary.csv"), "kept: rewritten at the end of a sweep");
        Files.writeString(dir.resolve("notes-users.csv"), "kept: not a point file");
        assertEquals(List.of(dir.resolve("hybrid-300users.csv"), dir.resolve("stock-2000users.csv")),
                Fig3Report.clearPointFiles(dir));
        assertFalse(Files.exists(dir.resolve("stock-2000users.csv")));
        assertTrue(Files.exists(dir.resolve("summary.csv")));
        assertTrue(Files.exists(dir.resolve("notes-users.csv")));
        assertEquals(List.of(), Fig3Report.clearPointFiles(dir.resolve("absent")));
    }

    @Test
    void theReadWriteMixIsCheckedCountingBackReRequestsAsThePageRequested() {
        // 1000 page requests in FACTS.md's proportions for the interactions it lists, the rest spread on
        // the others; BACK and END rows are not page requests and must not dilute the percentages.
        long[] counts = new long[State.values().length];
        counts[State.StoreComment.ordinal()] = 71;
        counts[State.StoreStory.ordinal()] = 26;
        counts[State.RegisterUser.ordinal()] = 13;
        counts[State.StoreModerateLog.ordinal()] = 6;
        counts[State.AcceptStory.ordinal()] = 4;
        counts[State.RejectStory.ordinal()] = 2;
        counts[State.ViewStory.ordinal()] = 174;
        counts[State.StoriesOfTheDay.ordinal()] = 172;
        counts[State.ViewComment.ordinal()] = 128;
        counts[State.PostComment.ordinal()] = 72;
        counts[State.Browse.ordinal()] = 56;
        counts[State.Search.ordinal()] = 276;
        counts[State.BACK.ordinal()] = 400;
        counts[State.END.ordinal()] = 70;
        String md = Fig3Report.mixCheck(List.of(point(counts)), Mix.READ_WRITE);
        assertTrue(md.contains("| StoreComment | 7.1 | 7.1 | +0.0 | 7.1 | +0.0 |"), md);
        assertTrue(md.contains("| ViewComment | 12.8 | 12.8 | +0.0 | 12.8 | +0.0 |"), md);
        assertTrue(md.contains("| RejectStory | 0.2 | 0.2 | +0.0 | 0.2 | +0.0 |"), md);
        assertTrue(md.contains("Counted: every interaction within"), md);
        assertEquals(Fig3Report.expectedMix(Mix.READ_WRITE).keySet().size(), 11);

        // Half the writes missing (what the stale browse-only files did to the pooled numbers) is flagged.
        counts[State.Search.ordinal()] += 71;
        counts[State.StoreComment.ordinal()] = 0;
        md = Fig3Report.mixCheck(List.of(point(counts)), Mix.READ_WRITE);
        assertTrue(md.contains("| StoreComment | 7.1 | 0.0 | -7.1 |"), md);
        assertTrue(md.contains("Counted: more than 2.0 points off: StoreComment."), md);
        assertTrue(md.contains("Served: more than 2.0 points off: StoreComment."), md);
    }

    @Test
    void aTransitionABackReplacedCountsForTheInteractionChosenAsTheOriginalCountsIt() {
        // As measured at 3-tier read/write: 30 of the 128 ViewComment transitions met a story without comments and
        // became a Back that re-requested the home page. The requests made are 98 ViewComment, 202 home pages.
        long[] counts = new long[State.values().length];
        counts[State.StoriesOfTheDay.ordinal()] = 172 + 30;
        counts[State.ViewComment.ordinal()] = 128 - 30;
        counts[State.ViewStory.ordinal()] = 174;
        counts[State.Search.ordinal()] = 1000 - 202 - 98 - 174;
        long[] noLinksTo = new long[State.values().length];
        long[] fallbacks = new long[State.values().length];
        noLinksTo[State.ViewComment.ordinal()] = 30;
        fallbacks[State.StoriesOfTheDay.ordinal()] = 30;
        long[] noLinksOn = new long[State.values().length];
        noLinksOn[State.ViewStory.ordinal()] = 30;
        String md = Fig3Report.mixCheck(List.of(point(counts, noLinksTo, fallbacks, noLinksOn)), Mix.READ_WRITE);
        assertTrue(md.contains("| StoriesOfTheDay | 17.2 | 17.2 | +0.0 | 20.2 | +3.0 |"), md);
        assertTrue(md.contains("| ViewComment | 12.8 | 12.8 | +0.0 | 9.8 | -3.0 |"), md);
        assertTrue(md.contains("links sought: ViewComment 30 (on pages of ViewStory 30)"), md);
        assertTrue(md.contains("Served: more than 2.0 points off: StoriesOfTheDay,"), md);
        // (the synthetic point has no writes; those are off either way)
        assertTrue(md.contains("Counted: more than 2.0 points off: Browse, PostComment, StoreComment, StoreStory."), md);

        // The same 30 ViewComment choices, now made on pages that said "Sorry": counted for ViewComment all the same.
        long[] sorry = noLinksTo;
        md = Fig3Report.mixCheck(List.of(point(counts, new long[counts.length], fallbacks, new long[counts.length],
                sorry)), Mix.READ_WRITE);
        assertTrue(md.contains("| ViewComment | 12.8 | 12.8 | +0.0 | 9.8 | -3.0 |"), md);
        assertTrue(md.contains("0 transitions found no link to follow and 30 followed a \"Sorry\" page"), md);
    }

    @Test
    void eachPointsMixIsShownOnItsOwn() {
        long[] exact = new long[State.values().length];
        for (var e : Fig3Report.expectedMix(Mix.READ_WRITE).entrySet()) {
            exact[e.getKey().ordinal()] = Math.round(10 * e.getValue());
        }
        exact[State.Search.ordinal()] = 276;
        long[] skewed = exact.clone();
        skewed[State.StoriesOfTheDay.ordinal()] += 30;
        skewed[State.ViewComment.ordinal()] -= 30;
        long[] noLinksTo = new long[State.values().length];
        noLinksTo[State.ViewComment.ordinal()] = 30;
        long[] fallbacks = new long[State.values().length];
        fallbacks[State.StoriesOfTheDay.ordinal()] = 30;
        long[] none = new long[State.values().length];
        String md = Fig3Report.mixByPoint(List.of(point(exact), point(skewed, noLinksTo, fallbacks, none)),
                Mix.READ_WRITE);
        String exactly = "StoriesOfTheDay +0.0, RegisterUser +0.0 | yes";
        assertTrue(md.contains("| stock | 10 | 1000 | " + exactly + " | " + exactly + " | 0.0 |"), md);
        assertTrue(md.contains("| stock | 10 | 1000 | " + exactly + " | StoriesOfTheDay +3.0, ViewComment -3.0 | no"
                + " | 3.0 |"), md);
    }

    @Test
    void theReportHasAMixCheckForBothMixes(@TempDir Path dir) throws Exception {
        long[] counts = new long[State.values().length];
        counts[State.StoriesOfTheDay.ordinal()] = 10;
        for (Mix mix : Mix.values()) {
            String md = Files.readString(Fig3Report.write(List.of(point(counts)), "setup", mix, dir));
            assertTrue(md.contains("## Interaction mix against the original's tables (FACTS.md 3.8, " + mix.label()),
                    md);
        }
    }

    private static SweepPoint point(long[] counts) {
        return point(counts, new long[counts.length], new long[counts.length], new long[counts.length]);
    }

    private static SweepPoint point(long[] counts, long[] noLinksTo, long[] fallbacks, long[] noLinksOn) {
        return point(counts, noLinksTo, fallbacks, noLinksOn, new long[counts.length]);
    }

    private static SweepPoint point(long[] counts, long[] noLinksTo, long[] fallbacks, long[] noLinksOn,
                                    long[] sorryBacksTo) {
        List<RunResult.Row> rows = new ArrayList<>();
        long interactions = 0;
        for (State s : State.values()) {
            rows.add(new RunResult.Row(s, counts[s.ordinal()], 0, 0, 1, 1, 1, 1, 1));
            interactions += s.isInteraction() ? counts[s.ordinal()] : 0;
        }
        RunResult result = new RunResult(10, 30, interactions, 0, interactions / 30.0, 1, 1, 1, 1, 1, 5, rows,
                boxed(noLinksTo), boxed(fallbacks), boxed(noLinksOn), boxed(sorryBacksTo));
        ProcessUsage.Rates rates = new ProcessUsage.Rates(10, 100, 1000);
        return new SweepPoint(ConnectorChoice.values()[0], 10, result, rates, rates);
    }

    private static List<Long> boxed(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }
}
