package io.hybridconnector.reliability.scenario;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.NormalClients;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 7: soak. Two servers at once, one loaded on its stock port and one on ours (so that fds, RSS and heap are
 * each connector's own), with mixed traffic: 0.1 KB and 100 KB keep-alive, churn (a connection per request),
 * blocking and computing requests. Every few seconds: fds, RSS, heap after GC, direct memory, threads; after the load
 * stops, the same once more. Lines must be flat and come back. Main thread (the clients on their own threads).
 */
public final class SoakScenario implements Scenario {

    private static final String NAME = "7-soak";

    /** One traffic kind of the mix: path, connections, mean think time, a connection per request. */
    private record Mix(String path, int connections, int thinkMillis, boolean close) {
    }

    private static final List<Mix> MIX = List.of(new Mix("/samples/size?kb=0.1", 8, 5, false),
            new Mix("/samples/size?kb=100", 2, 20, false), new Mix("/samples/size?kb=0.1", 2, 10, true),
            new Mix("/samples/block?ms=50", 2, 50, false), new Mix("/samples/compute?ms=5", 1, 50, false));

    private record Sample(long seconds, Snapshot snapshot) {
    }

    @Override
    public String name() {
        return "soak";
    }

    @Override
    public String title() {
        return "soak: mixed traffic, fds, RSS, heap after GC, direct memory and threads sampled; flat lines";
    }

    @Override
    public void run(Lab lab) throws Exception {
        Duration length = lab.profile().soak();
        Map<Side, ServerUnderTest> servers = new EnumMap<>(Side.class);
        Map<Side, List<Sample>> samples = new EnumMap<>(Side.class);
        Map<Side, Long> errors = new EnumMap<>(Side.class);
        Map<Side, Long> requests = new EnumMap<>(Side.class);
        Map<Side, Snapshot> start = new EnumMap<>(Side.class);
        Map<Side, Snapshot> end = new EnumMap<>(Side.class);
        try {
            for (Side side : Side.values()) {
                servers.put(side, ServerUnderTest.start(lab, "soak-" + side.name().toLowerCase(), "", ""));
                samples.put(side, new ArrayList<>());
                start.put(side, servers.get(side).snapshot(side, true));
            }
            Map<Side, List<NormalClients>> loads = new EnumMap<>(Side.class);
            for (Side side : Side.values()) {
                List<NormalClients> l = new ArrayList<>();
                for (Mix m : MIX) {
                    l.add(NormalClients.start(new CellSpec(servers.get(side).address(side), m.path, m.connections,
                            Duration.ofSeconds(1), length, Duration.ofSeconds(10), -1)
                            .withThinkTime(Duration.ofMillis(m.thinkMillis)).withCloseEach(m.close)));
                }
                loads.put(side, l);
            }
            long t0 = System.nanoTime();
            // the last sample must still be under load: the clients stop 1 s (warm-up) + length after t0
            long endAt = t0 + length.toNanos() + 1_000_000_000L - lab.profile().soakSample().toNanos();
            while (System.nanoTime() < endAt) {
                Thread.sleep(lab.profile().soakSample().toMillis());
                long sec = (System.nanoTime() - t0) / 1_000_000_000L;
                for (Side side : Side.values()) {
                    samples.get(side).add(new Sample(sec, servers.get(side).snapshot(side, true)));
                }
                lab.log("  soak %d s: stock %s | ours %s", sec, last(samples.get(Side.STOCK)).brief(),
                        last(samples.get(Side.OURS)).brief());
            }
            for (Side side : Side.values()) {
                long e = 0;
                long r = 0;
                for (NormalClients c : loads.get(side)) {
                    CellResult res = c.result();
                    e += res.errorCount();
                    r += res.requests();
                }
                errors.put(side, e);
                requests.put(side, r);
            }
            Thread.sleep(3_000);
            for (Side side : Side.values()) {
                end.put(side, servers.get(side).snapshot(side, true));
            }
            writeCsv(lab, samples);
            report(lab, samples, start, end, errors, requests);
        } finally {
            for (ServerUnderTest s : servers.values()) {
                s.close();
            }
        }
    }

    private static Snapshot last(List<Sample> s) {
        return s.get(s.size() - 1).snapshot;
    }

    private static void writeCsv(Lab lab, Map<Side, List<Sample>> samples) throws Exception {
        StringBuilder csv = new StringBuilder("connector,seconds," + Snapshot.CSV_HEADER + "\n");
        for (Side side : Side.values()) {
            for (Sample s : samples.get(side)) {
                csv.append(side.name().toLowerCase()).append(',').append(s.seconds).append(',')
                        .append(s.snapshot.csv()).append('\n');
            }
        }
        Path dir = lab.resultsDir();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("soak.csv"), csv, StandardCharsets.UTF_8);
    }

    /** The sample at a fifth of the soak (minute 6 of 30, about 36 s of 3 min): the reference once warmed up. */
    private static Snapshot reference(List<Sample> s) {
        return s.get(Math.min(s.size() - 1, s.size() / 5)).snapshot;
    }

    private static void report(Lab lab, Map<Side, List<Sample>> samples, Map<Side, Snapshot> start,
            Map<Side, Snapshot> end, Map<Side, Long> errors, Map<Side, Long> requests) {
        Findings f = lab.findings();
        f.begin(NAME, new SoakScenario().title());
        Side[] sides = { Side.STOCK, Side.OURS };
        f.add(NAME, "requests served", requests.get(Side.STOCK), requests.get(Side.OURS), "");
        f.addLowerIsBetter(NAME, "errors", errors.get(Side.STOCK), errors.get(Side.OURS), 0);
        for (String metric : List.of("fds", "threads", "heap after GC (MB)", "direct (KB)", "RSS (MB)")) {
            String[] v = new String[2];
            double[] growth = new double[2];
            for (int i = 0; i < 2; i++) {
                List<Sample> s = samples.get(sides[i]);
                double ref = value(metric, reference(s));
                double max = s.stream().mapToDouble(x -> value(metric, x.snapshot)).max().orElse(Double.NaN);
                double lastDuring = value(metric, last(s));
                v[i] = Findings.format(value(metric, start.get(sides[i]))) + " / " + Findings.format(ref) + " / "
                        + Findings.format(max) + " / " + Findings.format(lastDuring) + " / "
                        + Findings.format(value(metric, end.get(sides[i])));
                growth[i] = lastDuring - ref;
            }
            f.add(NAME, metric + ": start / at 1/5 / max / last under load / 3 s after", v[0], v[1], "");
            // a line is flat when it grew no more than stock's (or not at all) plus the slack: falling is fine
            double slack = metric.startsWith("heap") ? 0.1 * value(metric, reference(samples.get(Side.OURS))) : 0;
            f.add(NAME, metric + ": last under load - at 1/5", Findings.format(growth[0]),
                    Findings.format(growth[1]), growth[1] <= Math.max(0, growth[0]) + slack ? "ok" : "worse");
        }
        f.note(NAME, "Two servers at once, each loaded on one connector for " + lab.profile().soak().toSeconds()
                + " s, sampled every " + lab.profile().soakSample().toSeconds() + " s (after two full GCs); the"
                + " series is in `soak.csv`. Mix per connector: " + MIX + ". Not in the mix yet: TLS, h2c and slow"
                + " readers. Heap verdict: within 10 % of its value at 1/5 of the run.");
    }

    private static double value(String metric, Snapshot s) {
        return switch (metric) {
            case "fds" -> s.fds();
            case "threads" -> s.threads();
            case "heap after GC (MB)" -> s.heapBytes() / 1048576.0;
            case "direct (KB)" -> s.directBytes() / 1024.0;
            default -> s.rssKb() / 1024.0;
        };
    }
}
