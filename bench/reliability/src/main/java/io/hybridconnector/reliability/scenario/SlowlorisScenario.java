package io.hybridconnector.reliability.scenario;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.NormalClients;
import io.hybridconnector.reliability.client.Tricklers;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 2: slowloris. Half the connections trickle a header one byte a second, half a POST body, beside normal
 * clients (measured alone first): threads held, memory, normal clients' latency; then they fall silent and
 * {@code connectionTimeout} (5 s here) must cut them. Main thread (normal clients on their own).
 */
public final class SlowlorisScenario implements Scenario {

    private static final String NAME = "2-slowloris";
    private static final int TIMEOUT_MS = 5_000;
    private static final int TRICKLE_SECONDS = 8;

    private record Outcome(Snapshot before, CellResult quiet, Snapshot during, CellResult normal,
            int headersOpenAfterTrickle,
            int bodiesOpenAfterTrickle, int headersCut, int bodiesCut, Snapshot after) {
    }

    @Override
    public String name() {
        return "slowloris";
    }

    @Override
    public String title() {
        return "slowloris: headers and bodies one byte a second beside normal clients; connectionTimeout cuts them";
    }

    @Override
    public void run(Lab lab) throws Exception {
        String attrs = "connectionTimeout=\"" + TIMEOUT_MS + "\"";
        Map<Side, Outcome> out = new EnumMap<>(Side.class);
        try (ServerUnderTest server = ServerUnderTest.start(lab, "slowloris", attrs, attrs)) {
            for (Side side : Side.values()) {
                out.put(side, run(lab, server, side));
            }
        }
        report(lab, out);
    }

    private Outcome run(Lab lab, ServerUnderTest server, Side side) throws Exception {
        int n = lab.profile().slowlorisConnections();
        Snapshot before = server.snapshot(side, true);
        // The same clients with no trickler first: what the tricklers take from them is the difference.
        CellResult quiet = NormalClients.start(server.address(side), Duration.ofSeconds(TRICKLE_SECONDS)).result();
        NormalClients normal = NormalClients.start(server.address(side), Duration.ofSeconds(TRICKLE_SECONDS));
        try (Tricklers headers = new Tricklers(server.address(side), n / 2, false);
                Tricklers bodies = new Tricklers(server.address(side), n - n / 2, true)) {
            Snapshot during = null;
            for (int s = 0; s < TRICKLE_SECONDS; s++) {
                Thread.sleep(1_000);
                headers.tick();
                bodies.tick();
                if (s == TRICKLE_SECONDS - 2) {
                    during = server.snapshot(side, false);
                }
            }
            CellResult normalResult = normal.result();
            int headersOpen = headers.size() - headers.closedByServer();
            int bodiesOpen = bodies.size() - bodies.closedByServer();
            Thread.sleep(TIMEOUT_MS + 3_000); // silent now
            int headersCut = headers.closedByServer();
            int bodiesCut = bodies.closedByServer();
            lab.log("  %s: during %s; normal clients %s (no tricklers: %s); open after trickling: headers %d, bodies"
                    + " %d; cut after %d s silent: headers %d, bodies %d", side.label(), during.brief(),
                    NormalClients.describe(normalResult), NormalClients.describe(quiet), headersOpen, bodiesOpen,
                    TIMEOUT_MS / 1000 + 3, headersCut, bodiesCut);
            headers.close();
            bodies.close();
            Thread.sleep(3_000);
            Snapshot after = server.snapshot(side, true);
            return new Outcome(before, quiet, during, normalResult, headersOpen, bodiesOpen, headersCut, bodiesCut,
                    after);
        }
    }

    private static void report(Lab lab, Map<Side, Outcome> out) {
        Findings f = lab.findings();
        f.begin(NAME, new SlowlorisScenario().title());
        Outcome s = out.get(Side.STOCK);
        Outcome o = out.get(Side.OURS);
        int n = lab.profile().slowlorisConnections();
        f.addLowerIsBetter(NAME, "connector threads while trickling (before: stock " + s.before.connectorThreads()
                + ", ours " + o.before.connectorThreads() + ")", s.during.connectorThreads(),
                o.during.connectorThreads(), 0);
        f.addLowerIsBetter(NAME, "RSS while trickling - before (MB)", (s.during.rssKb() - s.before.rssKb()) / 1024.0,
                (o.during.rssKb() - o.before.rssKb()) / 1024.0, 8);
        f.addLowerIsBetter(NAME, "normal clients meanwhile: p99 ms", s.normal.latencyMillis(99),
                o.normal.latencyMillis(99), 2);
        f.add(NAME, "normal clients meanwhile: req/s", Findings.format(s.normal.requestsPerSecond()),
                Findings.format(o.normal.requestsPerSecond()), "");
        f.add(NAME, "normal clients meanwhile: req/s over theirs with no tricklers",
                String.format("%.2fx", s.normal.requestsPerSecond() / s.quiet.requestsPerSecond()),
                String.format("%.2fx", o.normal.requestsPerSecond() / o.quiet.requestsPerSecond()), "");
        f.add(NAME, "normal clients with no tricklers: req/s, p99 ms", Findings.format(s.quiet.requestsPerSecond())
                + ", " + Findings.format(s.quiet.latencyMillis(99)), Findings.format(o.quiet.requestsPerSecond())
                + ", " + Findings.format(o.quiet.latencyMillis(99)), "");
        f.addSame(NAME, "normal clients meanwhile: errors", s.normal.errorsText(), o.normal.errorsText());
        f.addSame(NAME, "header tricklers (" + n / 2 + ") still open after " + TRICKLE_SECONDS + " s",
                s.headersOpenAfterTrickle, o.headersOpenAfterTrickle);
        f.addSame(NAME, "body tricklers (" + (n - n / 2) + ") still open after " + TRICKLE_SECONDS + " s",
                s.bodiesOpenAfterTrickle, o.bodiesOpenAfterTrickle);
        // more cut is better: a trickler still open after connectionTimeout of silence holds what it holds longer
        f.add(NAME, "header tricklers cut after " + (TIMEOUT_MS / 1000 + 3) + " s of silence", s.headersCut,
                o.headersCut, o.headersCut >= s.headersCut ? "ok" : "worse");
        f.add(NAME, "body tricklers cut after " + (TIMEOUT_MS / 1000 + 3) + " s of silence", s.bodiesCut,
                o.bodiesCut, o.bodiesCut >= s.bodiesCut ? "ok" : "worse");
        f.addLowerIsBetter(NAME, "connections after (client connections)", s.after.connections(), o.after.connections(),
                0);
        f.note(NAME, n / 2 + " connections send `GET ... X-Slow: ` and then one byte a second, " + (n - n / 2)
                + " send a POST announcing 100,000 bytes to `/samples/upload` (which reads its body) and then one"
                + " byte a second, for " + TRICKLE_SECONDS + " s; then all fall silent. Both connectors with"
                + " `connectionTimeout=\"" + TIMEOUT_MS + "\"`. Normal clients: " + NormalClients.CONNECTIONS
                + " keep-alive connections asking 0.1 KB, " + NormalClients.THINK.toMillis() + " ms mean think time."
                + " Stock NIO starts each body trickler's servlet once its head is in, and its body read holds a thread"
                + " until it times out: where they outnumber `maxThreads` (200), normal requests queue for a worker."
                + " Ours reads a request's head and a body of up to its read buffer (8 KB) on the loop before the"
                + " servlet runs (issue 40), so a trickler holds no thread; one still arriving after"
                + " `requestReadTimeout` (20 s) plus a second per `minRequestDataRate` (500) bytes gets a 408.");
    }
}
