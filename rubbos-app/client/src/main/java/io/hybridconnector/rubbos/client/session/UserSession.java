package io.hybridconnector.rubbos.client.session;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import java.util.function.BooleanSupplier;

import io.hybridconnector.rubbos.client.http.BrowserConnection;
import io.hybridconnector.rubbos.client.http.Response;
import io.hybridconnector.rubbos.client.stats.PhaseClock;
import io.hybridconnector.rubbos.client.stats.Stats;
import io.hybridconnector.rubbos.client.workload.State;
import io.hybridconnector.rubbos.client.workload.ThinkTime;
import io.hybridconnector.rubbos.client.workload.TransitionTable;

/**
 * One emulated user: sessions back to back until the run ends. A session starts on the home page and walks the
 * transition table - think, draw the next state, request it - until End of Session or the transition limit.
 * <pre>
 *   page received --think--> draw next state
 *      next = END                   : session over
 *      page said "Sorry", or next = BACK : re-request the previous page of the history (home if none)
 *      otherwise                    : build the request from the page; no link to follow -> as BACK
 *   history: after entering state s, push the page left if P(BACK | s) &gt; 0, else forget the history
 *   an error (status 400 or 5xx, "ERROR" in the page, I/O failure) ends the session; the next starts at home
 * </pre>
 * Runs on its own thread (virtual or platform); owns its connection and its random stream.
 */
public final class UserSession implements Runnable {

    /** A page the user has seen: enough to go back to it (by re-requesting it) or to follow its links. */
    private record Page(State state, String url, String html) {
    }

    private final BrowserConnection connection;
    private final TransitionTable table;
    private final RequestFactory requests;
    private final ThinkTime thinkTime;
    private final Stats stats;
    private final PhaseClock clock;
    private final Random random;
    private final boolean author;
    private final int databaseUsers;
    private final int databaseAuthors;
    private final int maxTransitions;
    private final boolean fetchImages;
    private final String home;
    private final BooleanSupplier stopped;
    /** Who the current session logs in as; chosen at its start. */
    private Identity identity;

    public UserSession(BrowserConnection connection, TransitionTable table, RequestFactory requests,
                       ThinkTime thinkTime, Stats stats, PhaseClock clock, Random random, boolean author,
                       int databaseUsers, int databaseAuthors, int maxTransitions, boolean fetchImages,
                       String basePath, BooleanSupplier stopped) {
        this.connection = connection;
        this.table = table;
        this.requests = requests;
        this.thinkTime = thinkTime;
        this.stats = stats;
        this.clock = clock;
        this.random = random;
        this.author = author;
        this.databaseUsers = databaseUsers;
        this.databaseAuthors = databaseAuthors;
        this.maxTransitions = maxTransitions;
        this.fetchImages = fetchImages;
        this.home = basePath + "/servlet/StoriesOfTheDay";
        this.stopped = stopped;
    }

    @Override
    public void run() {
        try {
            while (!over()) {
                session();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connection.close();
        }
    }

    private boolean over() {
        return stopped.getAsBoolean() || clock.at(System.nanoTime()) == null;
    }

    private void session() throws InterruptedException {
        long start = System.nanoTime();
        identity = author ? Identity.randomAuthor(random, databaseAuthors)
                : Identity.randomUser(random, databaseUsers);
        Deque<Page> history = new ArrayDeque<>();
        Page current = request(State.StoriesOfTheDay, home);
        for (int transitions = 1; current != null && transitions < maxTransitions; transitions++) {
            if (!think()) {
                return;
            }
            State next = table.next(current.state(), random);
            if (next == State.END) {
                stats.transition(clock.at(System.nanoTime()), State.END);
                break;
            }
            if (next != State.BACK && current.html().contains("Sorry")) {
                Page previous = history.peek();
                stats.sorryBack(clock.at(System.nanoTime()), next,
                        previous == null ? State.StoriesOfTheDay : previous.state());
                next = State.BACK;
            }
            current = next == State.BACK ? back(history) : forward(next, current, history);
        }
        stats.sessionEnded(clock.at(System.nanoTime()), (System.nanoTime() - start) / 1_000_000);
    }

    private Page forward(State next, Page current, Deque<Page> history) {
        String url = requests.url(next, current.state(), current.html(), identity);
        if (url == null) {
            Page previous = history.peek();
            stats.noLink(clock.at(System.nanoTime()), current.state(), next,
                    previous == null ? State.StoriesOfTheDay : previous.state());
            return back(history);
        }
        Page page = request(next, url);
        if (page != null) {
            if (table.probability(next, State.BACK) > 0) {
                history.push(new Page(current.state(), current.url(), ""));
            } else {
                history.clear();
            }
        }
        return page;
    }

    private Page back(Deque<Page> history) {
        stats.transition(clock.at(System.nanoTime()), State.BACK);
        Page previous = history.poll();
        return previous == null ? request(State.StoriesOfTheDay, home) : request(previous.state(), previous.url());
    }

    /** @return false when the run ended during the think time */
    private boolean think() throws InterruptedException {
        long millis = thinkTime.draw(random);
        long left = (clock.endNanos() - System.nanoTime()) / 1_000_000;
        if (millis >= left) {
            Thread.sleep(Math.max(0, left));
            return false;
        }
        if (millis > 0) {
            Thread.sleep(millis);
        }
        return !stopped.getAsBoolean();
    }

    /** Requests a page and its images; records the interaction. @return the page, or null on error */
    private Page request(State state, String url) {
        long start = System.nanoTime();
        boolean ok = false;
        String html = null;
        try {
            Response response = connection.get(url);
            html = response.text();
            ok = (response.status() < 400 || response.status() == 404) && !html.contains("ERROR");
            if (ok && fetchImages) {
                for (String image : PageScraper.images(html)) {
                    if (image.startsWith("/")) {
                        connection.get(image);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            connection.close();
            ok = false;
        }
        long end = System.nanoTime();
        stats.record(clock.at(end), state, end - start, ok);
        return ok ? new Page(state, url, html) : null;
    }
}
