package io.hybridconnector.fairnessmap;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.measure.ProcStats;
import io.hybridconnector.bench.harness.measure.ServerProbe;
import io.hybridconnector.bench.harness.report.Stats;

/**
 * Runs the map's cells of one core count on one started Tomcat: the JIT warm-up, then interleaved rounds (every cell
 * on stock NIO, then on ours, round after round), waiting after each window until Tomcat is quiet ({@link Quiet}).
 * Runs on the main thread, which is also the light load's client thread; {@link Fairness} runs the heavy load on a
 * second one.
 */
final class MapRunner {

    /** The two connectors, in the order each cell runs them, with the ports they listen on. */
    record Connector(String name, String label, int port) {
    }

    private final List<Connector> connectors;
    private final long pid;
    private final ProcStats proc;
    /** The CPU Tomcat is pinned to (its busy share is reported), or -1. */
    private final int serverCpu;
    private final MapOptions options;
    private final Consumer<String> log;

    MapRunner(List<Connector> connectors, long pid, int serverCpu, MapOptions options, Consumer<String> log) {
        this.connectors = connectors;
        this.pid = pid;
        this.proc = new ProcStats(pid);
        this.serverCpu = serverCpu;
        this.options = options;
        this.log = log;
    }

    /**
     * Unmeasured: on each connector the light load alone, then beside the first cell of each heavy kind, for an
     * equal share of the JIT warm-up each: every servlet and both connectors' paths compiled before round 1.
     */
    void warmUp(List<Cell> cells) throws IOException, InterruptedException {
        Map<HeavyKind, Cell> firstOfKind = new LinkedHashMap<>();
        for (Cell c : cells) {
            firstOfKind.putIfAbsent(c.kind(), c);
        }
        Duration each = Duration.ofMillis(Math.round(options.jitWarmupSeconds() * 1000 / (firstOfKind.size() + 1)));
        for (Connector connector : connectors) {
            List<Fairness.Scenario> scenarios = new ArrayList<>();
            scenarios.add(Fairness.ALL.get(0)); // the light load alone
            firstOfKind.values().forEach(c -> scenarios.add(c.scenario()));
            for (Fairness.Scenario s : scenarios) {
                Fairness warm = new Fairness(Duration.ZERO, each, Duration.ofSeconds(30));
                Fairness.Result r = warm.run(connector.port(), s, connector.name(), 0);
                log.accept(String.format(Locale.ROOT, "warm-up   %-13s %-40s %s", connector.label(), s.name(),
                        Fairness.brief(r)));
                Quiet.await(proc);
            }
        }
    }

    /** Every cell on every connector, {@code rounds} times, interleaved; one {@link Window} per measured window. */
    List<Window> run(List<Cell> cells) throws IOException, InterruptedException {
        List<Window> windows = new ArrayList<>();
        int rounds = options.rounds();
        for (int round = 1; round <= rounds; round++) {
            for (Cell cell : cells) {
                Profile.Windows w = options.windows(cell);
                Fairness fairness = new Fairness(w.warmup(), w.window(), w.timeout());
                for (Connector connector : connectors) {
                    Window measured = measure(fairness, cell, connector, round);
                    windows.add(measured);
                    Duration waited = Quiet.await(proc);
                    log.accept(String.format(Locale.ROOT, "round %d/%d %-13s %-48s %s; waited %s s for quiet",
                            round, rounds, connector.label(), cell.label(), brief(measured),
                            Stats.format(waited.toMillis() / 1e3)));
                }
            }
        }
        return windows;
    }

    private Window measure(Fairness fairness, Cell cell, Connector connector, int round)
            throws IOException, InterruptedException {
        long[] before = ProcStats.stealAndTotalTicks();
        ServerProbe server = new ServerProbe(proc, pid, false, null, serverCpu);
        Fairness.Result r = fairness.run(new InetSocketAddress("127.0.0.1", connector.port()), cell.scenario(),
                connector.name(), round, server);
        double steal = ProcStats.stealShare(before, ProcStats.stealAndTotalTicks());
        return Window.of(cell, r, server.finish(), steal);
    }

    private static String brief(Window w) {
        return String.format(Locale.ROOT, "light %8s req/s p99 %7s ms, heavy %7s req/s (%d), errors %s, client CPU "
                + "%s, Tomcat CPU %s, steal %s", Stats.format(w.lightRps()), Stats.format(w.lightP99()),
                Stats.format(w.heavyRps()), w.heavyRequests(), w.errors(), Stats.format(w.clientCpu()),
                Stats.format(w.tomcatCpu()), Stats.format(w.steal()));
    }
}
