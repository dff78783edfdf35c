package io.hybridconnector.rubbos.client.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.hybridconnector.rubbos.client.http.BrowserConnection;
import io.hybridconnector.rubbos.client.stats.Phase;
import io.hybridconnector.rubbos.client.stats.PhaseClock;
import io.hybridconnector.rubbos.client.stats.Stats;
import io.hybridconnector.rubbos.client.workload.State;
import io.hybridconnector.rubbos.client.workload.ThinkTime;
import io.hybridconnector.rubbos.client.workload.TransitionTable;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One emulated user against a small HTTP server over real sockets: when the walk chooses a transition it cannot make
 * (the page offers no link to it, or says "Sorry"), the user goes back instead, and the statistics keep both what
 * was chosen and what was served, so the report can count the mix as the original client does.
 */
class UserSessionTest {

    /** Home links one story; ViewStory then goes on to ViewComment or ends the session, evenly. */
    private static final String TABLE = """
            StoriesOfTheDay -> ViewStory 1.0
            ViewStory -> ViewComment 0.5, END 0.5
            ViewComment -> END 1.0
            """;

    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/rubbos/servlet/StoriesOfTheDay",
                e -> reply(e, "<a href=\"/rubbos/servlet/ViewStory?storyId=1\">a story</a>"));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aChoiceThePageSaidSorryToIsCountedAsChosenAndServedAsTheBack() throws Exception {
        server.createContext("/rubbos/servlet/ViewStory",
                e -> reply(e, "<p>Sorry, but this story does not exist.</p>"));
        Stats stats = runOneUser();

        long sorryBacks = stats.sorryBacks(Phase.RUN, State.ViewComment);
        assertTrue(sorryBacks > 0, "ViewComment chosen on a Sorry page " + sorryBacks + " times");
        assertEquals(0, stats.cell(Phase.RUN, State.ViewComment).count(), "never served");
        assertEquals(0, stats.noLinks(Phase.RUN, State.ViewComment));
        // The Back re-requested the home page each time (ViewStory keeps no history in this table).
        assertEquals(sorryBacks, stats.fallbacks(Phase.RUN, State.StoriesOfTheDay));
    }

    @Test
    void aChoiceThePageOfferedNoLinkForIsCountedAsChosenAndServedAsTheBack() throws Exception {
        server.createContext("/rubbos/servlet/ViewStory", e -> reply(e, "<p>A story without comments.</p>"));
        Stats stats = runOneUser();

        long noLinks = stats.noLinks(Phase.RUN, State.ViewComment);
        assertTrue(noLinks > 0, "ViewComment sought in vain " + noLinks + " times");
        assertEquals(noLinks, stats.noLinksOn(Phase.RUN, State.ViewStory));
        assertEquals(0, stats.sorryBacks(Phase.RUN, State.ViewComment));
        assertEquals(0, stats.cell(Phase.RUN, State.ViewComment).count(), "never served");
        assertEquals(noLinks, stats.fallbacks(Phase.RUN, State.StoriesOfTheDay));
    }

    /** One user, no think time, no ramps, for 1.5 s of run phase. */
    private Stats runOneUser() throws Exception {
        Stats stats = new Stats();
        PhaseClock clock = new PhaseClock(System.nanoTime(), Duration.ZERO, Duration.ofMillis(1500), Duration.ZERO);
        TransitionTable table = TransitionTable.parse("test", new StringReader(TABLE));
        Random random = new Random(42);
        String base = "/rubbos";
        BrowserConnection connection = new BrowserConnection("127.0.0.1", server.getAddress().getPort(), 2000, 2000);
        UserSession user = new UserSession(connection, table, new RequestFactory(base, random, 100),
                new ThinkTime(0), stats, clock, random, false, 100, 10, 1000, false, base, () -> false);
        Thread thread = new Thread(user);
        thread.start();
        thread.join(10_000);
        assertTrue(!thread.isAlive(), "the user stops when the run phase ends");
        return stats;
    }

    private static void reply(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = ("<html><body>" + body + "</body></html>").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/html");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
