package io.hybridconnector.rubbos.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import io.hybridconnector.rubbos.client.session.PageScraper;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.client.workload.State;
import io.hybridconnector.rubbos.client.workload.ThinkTime;
import io.hybridconnector.rubbos.client.workload.TransitionTable;

import org.junit.jupiter.api.Test;

/** The tables and the Markov semantics reproduce the mix derived from the original (FACTS.md 3.8). */
class TransitionTableTest {

    @Test
    void browseOnlyMixMatchesTheOriginal() {
        double[] mix = simulate(Mix.BROWSE_ONLY.userTable(), 100_000, new Random(5));
        assertNear(22.1, mix[State.StoriesOfTheDay.ordinal()]);
        assertNear(26.7, mix[State.ViewStory.ordinal()]);
        assertNear(27.9, mix[State.ViewComment.ordinal()]);
        assertNear(3.7, mix[State.Browse.ordinal()]);
        assertNear(3.4, mix[State.OlderStories.ordinal()]);
        assertNear(3.8, mix[State.SearchInStories.ordinal()]);
    }

    /**
     * The read/write tables, 90% user and 10% author sessions, give FACTS.md 3.8's read/write mix: the six writes
     * and the five biggest reads, each within 0.5 points (the numbers are rounded to 0.1; this walk has no "Sorry"
     * pages and no missing links, so what a run measures beyond this comes from the pages, not the tables).
     */
    @Test
    void readWriteMixMatchesTheOriginal() {
        double[] mix = simulate(Mix.READ_WRITE.userTable(), Mix.READ_WRITE.authorTable(), 0.10, 200_000,
                new Random(8));
        double[][] expected = {
            {State.StoreComment.ordinal(), 7.1}, {State.StoreStory.ordinal(), 2.6},
            {State.RegisterUser.ordinal(), 1.3}, {State.StoreModerateLog.ordinal(), 0.6},
            {State.AcceptStory.ordinal(), 0.4}, {State.RejectStory.ordinal(), 0.2},
            {State.ViewStory.ordinal(), 17.4}, {State.StoriesOfTheDay.ordinal(), 17.2},
            {State.ViewComment.ordinal(), 12.8}, {State.PostComment.ordinal(), 7.2}, {State.Browse.ordinal(), 5.6}};
        for (double[] e : expected) {
            assertEquals(e[1], mix[(int) e[0]], 0.5, State.values()[(int) e[0]] + ": percent of requests");
        }
    }

    @Test
    void userSessionsStoreStoriesAtTheTruncatedRate() {
        TransitionTable t = Mix.READ_WRITE.userTable();
        Random r = new Random(1);
        int store = 0;
        for (int i = 0; i < 100_000; i++) {
            if (t.next(State.SubmitStory, r) == State.StoreStory) {
                store++;
            }
        }
        // The column sums to 1.138: StoreStory keeps 1 - 0.155 = 0.845 (FACTS.md 3.7).
        assertEquals(0.845, store / 100_000.0, 0.01);
    }

    @Test
    void thinkTimeIsNegativeExponentialCapped() {
        ThinkTime t = new ThinkTime(7000);
        Random r = new Random(3);
        double sum = 0;
        long max = 0;
        for (int i = 0; i < 200_000; i++) {
            long d = t.draw(r);
            sum += d;
            max = Math.max(max, d);
        }
        assertEquals(7000, sum / 200_000, 100);
        assertTrue(max <= 70_000);
        assertEquals(0, new ThinkTime(0).draw(r));
    }

    @Test
    void scraperFindsLinksHiddenFieldsAndImages() {
        String html = "<img src=\"/rubbos/RUBBoS_logo.jpg\" alt=\"x\"><a href=\"/rubbos/servlet/ViewStory?storyId=3\">"
                + "<a href=\"/rubbos/servlet/PostComment?storyId=3&amp;parent=0&amp;comment_table=comments\">"
                + "<input type=\"hidden\" name=\"parent\" value=\"17\">";
        assertEquals(List.of("/rubbos/RUBBoS_logo.jpg"), PageScraper.images(html));
        assertEquals(List.of("/rubbos/servlet/PostComment?storyId=3&parent=0&comment_table=comments"),
                PageScraper.links(html, "PostComment?"));
        assertEquals("17", PageScraper.hidden(html, "parent"));
    }

    private static double[] simulate(TransitionTable t, int sessions, Random r) {
        return simulate(t, t, 0, sessions, r);
    }

    /**
     * Walks sessions with the original's semantics (no data-dependent Sorry), a share of them with the author
     * table, returning % of page requests (a Back counts as a request of the page it goes back to).
     */
    private static double[] simulate(TransitionTable user, TransitionTable author, double authors, int sessions,
                                     Random r) {
        long[] counts = new long[State.values().length];
        long total = 0;
        for (int s = 0; s < sessions; s++) {
            TransitionTable t = r.nextDouble() < authors ? author : user;
            State current = State.StoriesOfTheDay;
            Deque<State> history = new ArrayDeque<>();
            counts[current.ordinal()]++;
            total++;
            for (int n = 1; n < 1000; n++) {
                State next = t.next(current, r);
                if (next == State.END) {
                    break;
                }
                if (next == State.BACK) {
                    next = history.isEmpty() ? State.StoriesOfTheDay : history.pop();
                } else if (t.probability(next, State.BACK) > 0) {
                    history.push(current);
                } else {
                    history.clear();
                }
                current = next;
                counts[current.ordinal()]++;
                total++;
            }
        }
        double[] percent = new double[counts.length];
        for (int i = 0; i < counts.length; i++) {
            percent[i] = 100.0 * counts[i] / total;
        }
        return percent;
    }

    private static void assertNear(double expected, double actual) {
        assertEquals(expected, actual, 1.0, "percent of requests");
    }
}
