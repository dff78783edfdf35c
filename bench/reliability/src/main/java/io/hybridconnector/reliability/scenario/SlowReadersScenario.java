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
import io.hybridconnector.reliability.client.SlowReaders;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 3: connections asking 10 MB, half of them reading 64 KB every 50 ms, half not reading at all, beside
 * normal clients: threads and (ours) write-behind memory while they last, normal clients' latency, and whether the
 * write deadline ({@code connectionTimeout}, 5 s here) cuts the stalled ones. Main thread.
 */
public final class SlowReadersScenario implements Scenario {

    private static final String NAME = "3-slow-readers";
    private static final int TIMEOUT_MS = 5_000;
    private static final long BODY = 10L * 1024 * 1024;
    private static final Duration WINDOW = Duration.ofSeconds(10);

    private record Outcome(Snapshot before, Snapshot peak, Snapshot after, CellResult normal, int slowComplete,
            int slowCut, int stalledComplete, int stalledCut, long slowSeconds) {
    }

    @Override
    public String name() {
        return "slow-readers";
    }

    @Override
    public String title() {
        return "slow and stalled readers of 10 MB beside normal clients; the write deadline";
    }

    @Override
    public void run(Lab lab) throws Exception {
        String attrs = "connectionTimeout=\"" + TIMEOUT_MS + "\"";
        Map<Side, Outcome> out = new EnumMap<>(Side.class);
        try (ServerUnderTest server = ServerUnderTest.start(lab, "slow-readers", attrs, attrs)) {
            for (Side side : Side.values()) {
                out.put(side, run(lab, server, side));
            }
        }
        report(lab, out);
    }

    private Outcome run(Lab lab, ServerUnderTest server, Side side) throws Exception {
        int n = lab.profile().slowReaders();
        FaultsScenario.describe(server.address(side), "/samples/fixed?kb=10240"); // the body is made once
        Snapshot before = server.snapshot(side, true);
        NormalClients normal = NormalClients.start(server.address(side), WINDOW);
        Thread.sleep(1_000);
        long t0 = System.nanoTime();
        int threads = 0;
        long writeBehind = -1;
        long rss = 0;
        long direct = 0;
        try (SlowReaders readers = new SlowReaders(server.address(side), "/samples/fixed?kb=10240", n / 2, n - n / 2,
                BODY)) {
            long nextSample = 0;
            long slowDone = 0;
            while (elapsedMillis(t0) < 30_000) {
                readers.tick(64 * 1024);
                if (elapsedMillis(t0) >= nextSample) {
                    Snapshot s = server.snapshot(side, false);
                    threads = Math.max(threads, s.connectorThreads());
                    writeBehind = Math.max(writeBehind, s.writeBehindBytes());
                    rss = Math.max(rss, s.rssKb());
                    direct = Math.max(direct, s.directBytes());
                    nextSample += 1_000;
                }
                if (slowDone == 0 && readers.allSlowDone()) {
                    slowDone = elapsedMillis(t0);
                }
                if (slowDone > 0 && elapsedMillis(t0) > WINDOW.toMillis()) {
                    break;
                }
                Thread.sleep(50);
            }
            CellResult normalResult = normal.result();
            readers.drain(2_000);
            Snapshot peak = new Snapshot(-1, threads, -1, rss, -1, direct, -1, writeBehind);
            lab.log("  %s: normal clients %s; slow complete %d cut %d; stalled complete %d cut %d; peak %s",
                    side.label(), NormalClients.describe(normalResult), readers.complete(false), readers.cut(false),
                    readers.complete(true), readers.cut(true), peak.brief());
            int[] counts = { readers.complete(false), readers.cut(false), readers.complete(true), readers.cut(true) };
            readers.close();
            Thread.sleep(2_000);
            Snapshot after = server.snapshot(side, true);
            return new Outcome(before, peak, after, normalResult, counts[0], counts[1], counts[2], counts[3],
                    slowDone / 1000);
        }
    }

    private static long elapsedMillis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void report(Lab lab, Map<Side, Outcome> out) {
        Findings f = lab.findings();
        f.begin(NAME, new SlowReadersScenario().title());
        Outcome s = out.get(Side.STOCK);
        Outcome o = out.get(Side.OURS);
        int n = lab.profile().slowReaders();
        f.addLowerIsBetter(NAME, "connector threads at peak (before: stock " + s.before.connectorThreads() + ", ours "
                + o.before.connectorThreads() + ")", s.peak.connectorThreads(), o.peak.connectorThreads(), 0);
        f.add(NAME, "write-behind memory at peak (bytes; bound " + n + " x 262144 = " + n * 262144L + ")", "n/a",
                o.peak.writeBehindBytes(), o.peak.writeBehindBytes() <= n * 262144L ? "ok" : "worse");
        f.add(NAME, "write-behind memory after (bytes)", "n/a", o.after.writeBehindBytes(),
                o.after.writeBehindBytes() == 0 ? "ok" : "worse");
        f.addLowerIsBetter(NAME, "RSS at peak - before (MB)", (s.peak.rssKb() - s.before.rssKb()) / 1024.0,
                (o.peak.rssKb() - o.before.rssKb()) / 1024.0, 16);
        f.addLowerIsBetter(NAME, "direct memory after - before (KB)", (s.after.directBytes() - s.before.directBytes())
                / 1024.0, (o.after.directBytes() - o.before.directBytes()) / 1024.0, 0);
        f.addLowerIsBetter(NAME, "normal clients meanwhile: p99 ms", s.normal.latencyMillis(99),
                o.normal.latencyMillis(99), 2);
        f.add(NAME, "normal clients meanwhile: req/s", Findings.format(s.normal.requestsPerSecond()),
                Findings.format(o.normal.requestsPerSecond()), "");
        f.addSame(NAME, "normal clients meanwhile: errors", s.normal.errorsText(), o.normal.errorsText());
        f.addSame(NAME, "slow readers (" + n / 2 + ") that got all 10 MB", s.slowComplete, o.slowComplete);
        f.add(NAME, "slow readers: s until all done", s.slowSeconds, o.slowSeconds, "");
        f.addSame(NAME, "stalled readers (" + (n - n / 2) + ") cut by the server before 10 MB", s.stalledCut,
                o.stalledCut);
        f.addSame(NAME, "stalled readers that got all 10 MB anyway", s.stalledComplete, o.stalledComplete);
        f.addLowerIsBetter(NAME, "connections after (client connections)", s.after.connections(), o.after.connections(),
                0);
        f.addLowerIsBetter(NAME, "connector threads after", s.after.connectorThreads(), o.after.connectorThreads(), 0);
        f.note(NAME, "`/samples/fixed?kb=10240` (a 10 MB body made once); client receive buffers 16 KB; slow readers"
                + " read 64 KB every 50 ms (about 1.3 MB/s), stalled ones read nothing until the end, then whatever"
                + " still comes. Both connectors with `connectionTimeout=\"" + TIMEOUT_MS + "\"` (the write deadline)."
                + " Normal clients: " + NormalClients.CONNECTIONS + " keep-alive connections asking 0.1 KB with a "
                + NormalClients.THINK.toMillis() + " ms mean think time over " + WINDOW.toSeconds() + " s. Peaks:"
                + " maxima of snapshots taken every second.");
    }
}
