package io.hybridconnector.reliability.scenario;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.LoadGenerator;
import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.NormalClients;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 8: overload. Capacity is measured first (a closed loop of 16 connections asking {@code
 * /samples/compute?ms=1}, the larger of the two connectors' rates); then many connections, each pausing 100 ms on
 * average between requests, offer 3x that rate: the server must stay up (no OutOfMemoryError, threads and memory
 * bounded) and we report latency and errors beside stock. Main thread (the load on its own thread).
 */
public final class OverloadScenario implements Scenario {

    private static final String NAME = "8-overload";
    private static final String PATH = "/samples/compute?ms=1";
    private static final Duration THINK = Duration.ofMillis(100);
    private static final int CAPACITY_ROUNDS = 2;

    /** The MBean counters of ours the report shows, after the capacity rounds and after the overload. */
    private static final String[] COUNTERS = { "HandOffs", "ComputedHandOffs", "PredictedHandOffs",
            "LoopWaitP99Micros", "TimeSlicingSwitchedOn", "TimeSlicedRuns", "ThreadsNow" };

    private record Outcome(double capacity, CellResult overload, Snapshot before, Snapshot peak, Snapshot after) {
    }

    @Override
    public String name() {
        return "overload";
    }

    @Override
    public String title() {
        return "3x the load the server can serve: no OOM, bounded threads and memory; latency and errors";
    }

    @Override
    public void run(Lab lab) throws Exception {
        Map<Side, Outcome> out = new EnumMap<>(Side.class);
        try (ServerUnderTest server = ServerUnderTest.start(lab, "overload", "", "")) {
            Map<Side, Double> capacity = new EnumMap<>(Side.class);
            Map<Side, String> rounds = new EnumMap<>(Side.class);
            for (int round = 0; round < CAPACITY_ROUNDS; round++) {
                for (Side side : Side.values()) {
                    CellResult r = LoadGenerator.run(new CellSpec(server.address(side), PATH, 16,
                            Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(10), -1));
                    capacity.merge(side, r.requestsPerSecond(), Math::max);
                    rounds.merge(side, Findings.format(r.requestsPerSecond()) + " (p99 "
                            + Findings.format(r.latencyMillis(99)) + " ms)", (a, b) -> a + ", " + b);
                    lab.log("  %s capacity: %s", side.label(), NormalClients.describe(r));
                }
            }
            lab.findings().begin(NAME, title());
            lab.findings().add(NAME, "capacity per round, interleaved: req/s (p99)", rounds.get(Side.STOCK),
                    rounds.get(Side.OURS), "");
            lab.findings().add(NAME, "ours' counters after the capacity rounds: " + String.join(", ", COUNTERS),
                    "n/a", ourCounters(server), "");
            double rate = Math.max(capacity.get(Side.STOCK), capacity.get(Side.OURS));
            // a connection offers at most 1 / THINK requests per second
            int connections = (int) Math.ceil(3 * rate * THINK.toMillis() / 1000.0);
            for (Side side : Side.values()) {
                out.put(side, overload(lab, server, side, capacity.get(side), connections));
            }
            lab.findings().add(NAME, "ours' counters after the overload too", "n/a", ourCounters(server), "");
            long oom = server.logLinesContaining("OutOfMemoryError");
            report(lab, out, rate, connections, oom, server.tomcat().logs().contains("OutOfMemoryError"));
        }
    }

    private static String ourCounters(ServerUnderTest server) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (String c : COUNTERS) {
            sb.append(sb.length() == 0 ? "" : ", ").append(server.ourCounter(c));
        }
        return sb.toString();
    }

    private Outcome overload(Lab lab, ServerUnderTest server, Side side, double capacity, int connections)
            throws Exception {
        Snapshot before = server.snapshot(side, true);
        CellSpec spec = new CellSpec(server.address(side), PATH, connections, Duration.ofSeconds(2),
                lab.profile().overload(), Duration.ofSeconds(5), -1).withThinkTime(THINK);
        NormalClients load = NormalClients.start(spec);
        int threads = 0;
        long rss = 0;
        long heap = 0;
        long conns = 0;
        long end = System.nanoTime() + (2 + lab.profile().overload().toSeconds()) * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(1_000);
            Snapshot s = server.snapshot(side, false);
            threads = Math.max(threads, s.connectorThreads());
            rss = Math.max(rss, s.rssKb());
            heap = Math.max(heap, s.heapBytes());
            conns = Math.max(conns, s.connections());
        }
        CellResult r = load.result();
        Thread.sleep(2_000);
        Snapshot after = server.snapshot(side, true);
        Snapshot peak = new Snapshot(-1, threads, -1, rss, heap, -1, conns, -1);
        lab.log("  %s overload (%d connections): %s; peak %s", side.label(), connections, NormalClients.describe(r),
                peak.brief());
        return new Outcome(capacity, r, before, peak, after);
    }

    private static void report(Lab lab, Map<Side, Outcome> out, double rate, int connections, long oom,
            boolean anyOom) {
        Findings f = lab.findings();
        Outcome s = out.get(Side.STOCK);
        Outcome o = out.get(Side.OURS);
        f.add(NAME, "capacity, closed loop of 16: best round (req/s)", Findings.format(s.capacity),
                Findings.format(o.capacity), o.capacity >= 0.9 * s.capacity ? "ok" : "worse");
        f.add(NAME, "overload: served req/s", Findings.format(s.overload.requestsPerSecond()),
                Findings.format(o.overload.requestsPerSecond()), "");
        f.addLowerIsBetter(NAME, "overload: p50 ms", s.overload.latencyMillis(50), o.overload.latencyMillis(50), 2);
        f.addLowerIsBetter(NAME, "overload: p99 ms", s.overload.latencyMillis(99), o.overload.latencyMillis(99), 5);
        f.add(NAME, "overload: errors", s.overload.errorsText(), o.overload.errorsText(),
                o.overload.errorCount() <= s.overload.errorCount() ? "ok" : "worse");
        f.addLowerIsBetter(NAME, "connector threads at peak", s.peak.connectorThreads(), o.peak.connectorThreads(), 0);
        f.add(NAME, "heap at peak (MB, not after GC)", s.peak.heapBytes() >> 20, o.peak.heapBytes() >> 20, "");
        f.add(NAME, "connections at peak (Tomcat's count)", s.peak.connections(), o.peak.connections(), "");
        f.addLowerIsBetter(NAME, "heap after GC, after - before (MB)", (s.after.heapBytes() - s.before.heapBytes())
                / 1048576.0, (o.after.heapBytes() - o.before.heapBytes()) / 1048576.0, 2);
        f.add(NAME, "OutOfMemoryError lines in the logs (whole server)", oom, oom, anyOom ? "worse" : "ok");
        f.note(NAME, "Offered load: " + connections + " keep-alive connections, each pausing " + THINK.toMillis()
                + " ms on average (exponential) between a response and its next request, i.e. up to "
                + Findings.format(connections * 1000.0 / THINK.toMillis()) + " req/s, 3x the larger capacity ("
                + Findings.format(rate) + " req/s). `" + PATH + "` computes for 1 ms. Requests unanswered after 5 s"
                + " count as timeouts. A closed loop with think time, so once the server saturates the offered rate"
                + " falls with latency: queueing is bounded by the connections, not by a rate.");
    }
}
