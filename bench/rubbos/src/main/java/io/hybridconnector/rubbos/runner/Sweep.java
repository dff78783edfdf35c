package io.hybridconnector.rubbos.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.hybridconnector.bench.harness.cpu.Machine;
import io.hybridconnector.bench.harness.measure.ProcessUsage;
import io.hybridconnector.rubbos.client.ClientConfig;
import io.hybridconnector.rubbos.client.ClientEmulator;
import io.hybridconnector.rubbos.client.stats.Phase;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.data.DataSpec;

/**
 * The Fig 3 sweep of one connector, for both runners once they have deployed it: warm the server up, then per number
 * of users run the client's up-ramp, measured phase and down-ramp, reading the tiers' CPU and context switches at the
 * measured phase's edges (and, with {@code --diagnose}, the connector's counters, thread dumps and scheduler
 * statistics), and write each point's CSV as it completes. Main thread; one timer thread takes the thread dumps.
 */
final class Sweep {

    /**
     * The processes measured at each point: the server tier (one JVM embedded; each Tomcat copy in 3-tier) with their
     * JMX ports for {@code --diagnose} (0: none), and in 3-tier httpd's processes (found afresh at each reading) and
     * MariaDB's, when known.
     */
    record Tiers(List<Long> servers, List<Integer> jmxPorts, Supplier<? extends Collection<Long>> web,
                 Optional<Long> database) {

        static Tiers embedded(long server, int jmxPort) {
            return new Tiers(List.of(server), List.of(jmxPort), null, Optional.empty());
        }

        boolean threeTier() {
            return web != null;
        }
    }

    /** Runs before each point, e.g. to reload the data a read/write point changed. */
    interface BeforePoint {
        void prepare(int users) throws Exception;
    }

    private final SweepOptions o;
    private final Mix workload;
    private final DataSpec spec;

    Sweep(SweepOptions o, Mix workload, DataSpec spec) {
        this.o = o;
        this.workload = workload;
        this.spec = spec;
    }

    /** Warms up a server that listens on {@code port}, then runs every point; @return the points, in order */
    List<SweepPoint> run(ConnectorChoice connector, int port, long warmupSeconds, Tiers tiers, BeforePoint before)
            throws Exception {
        if (warmupSeconds > 0) {
            System.out.println("  warm-up: " + warmupSeconds + " s, 32 users without think time (not recorded)");
            new ClientEmulator(new ClientConfig("127.0.0.1", port, "/rubbos", 32, workload, 0, Duration.ZERO,
                    Duration.ofSeconds(warmupSeconds), Duration.ZERO, 0.10, spec.users(), spec.authors(), 1000,
                    !o.noImages, 99, 0), System.out).run();
        }
        ClientConfig base = new ClientConfig("127.0.0.1", port, "/rubbos", 1, workload, o.thinkMillis,
                Duration.ofSeconds(o.up), Duration.ofSeconds(o.run), Duration.ofSeconds(o.down), 0.10, spec.users(),
                spec.authors(), 1000, !o.noImages, 7, 10);
        List<SweepPoint> points = new ArrayList<>();
        for (int n : o.users) {
            before.prepare(n);
            SweepPoint point = point(connector, n, base, tiers);
            points.add(point);
            Fig3Report.writePoint(point, o.out);
            print(point);
        }
        return points;
    }

    private SweepPoint point(ConnectorChoice connector, int n, ClientConfig base, Tiers tiers) throws Exception {
        long self = ProcessHandle.current().pid();
        // [tier][0 = measured phase starts, 1 = ends]; tiers: server, client (this JVM), web, database
        ProcessUsage.Sample[][] s = new ProcessUsage.Sample[4][2];
        String name = connector.label() + "-" + n + "users";
        List<Diagnostics> diags = new ArrayList<>();
        if (o.diagnose) {
            for (int i = 0; i < tiers.servers().size(); i++) {
                diags.add(new Diagnostics(tiers.servers().get(i), tiers.jmxPorts().get(i), o.out.resolve("diag")));
            }
        }
        // MariaDB's threads too: is the database short of CPU (run-queue waits) or idle?
        Diagnostics dbSched = o.diagnose && tiers.database().isPresent()
                ? new Diagnostics(tiers.database().get(), 0, o.out.resolve("diag")) : null;
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        RunResult result = new ClientEmulator(base.withUsers(n), System.out).run(phase -> {
            int at;
            if (phase == Phase.RUN) {
                at = 0;
                if (dbSched != null) {
                    dbSched.startSched();
                }
                for (int i = 0; i < diags.size(); i++) {
                    Diagnostics d = diags.get(i);
                    String copy = copyName(name, i, diags.size());
                    d.resetCounters();
                    d.startSched();
                    timer.schedule(() -> d.writeThreadDump(copy, o.dumps), o.run / 2, TimeUnit.SECONDS);
                }
            } else if (phase == Phase.DOWN_RAMP || (phase == null && s[0][1] == null)) {
                at = 1;
                if (dbSched != null) {
                    System.out.println("  sched mariadb: " + dbSched.writeSched(name + "-mariadb"));
                }
                for (int i = 0; i < diags.size(); i++) {
                    String copy = copyName(name, i, diags.size());
                    diags.get(i).writeMBeans(copy);
                    System.out.println((tiers.threeTier() ? "  sched " + copy + ": " : "  sched: ")
                            + diags.get(i).writeSched(copy));
                }
            } else {
                return;
            }
            s[0][at] = ProcessUsage.sum(tiers.servers());
            s[1][at] = ProcessUsage.of(self);
            if (tiers.threeTier()) {
                s[2][at] = ProcessUsage.sum(tiers.web().get());
                s[3][at] = tiers.database().map(ProcessUsage::of).orElse(null);
            }
        });
        timer.shutdown();
        timer.awaitTermination(60, TimeUnit.SECONDS);
        ProcessUsage.Rates server = ProcessUsage.between(s[0][0], s[0][1]);
        ProcessUsage.Rates client = ProcessUsage.between(s[1][0], s[1][1]);
        if (!tiers.threeTier()) {
            return new SweepPoint(connector, n, result, server, client);
        }
        return new SweepPoint(connector, n, result, server, client, ProcessUsage.between(s[2][0], s[2][1]),
                s[3][0] == null ? new ProcessUsage.Rates(-1, -1, -1) : ProcessUsage.between(s[3][0], s[3][1]));
    }

    private static String copyName(String point, int copy, int copies) {
        return point + (copies > 1 ? "-copy" + copy : "");
    }

    private static void print(SweepPoint p) {
        RunResult r = p.result();
        String start = String.format(Locale.ROOT, "  => %s %d users: %.1f interactions/s, %d errors, mean %.1f ms, "
                + "p50 %.1f ms, p99 %.1f ms, ", p.connector().label(), p.users(), r.throughput(), r.errors(),
                r.meanMs(), r.p50Ms(), r.p99Ms());
        String tiers = p.web() == null
                ? String.format(Locale.ROOT, "server CPU %.0f%%, server ctx switches %.0f/s, client CPU %.0f%%",
                        p.server().cpuPercent(), p.server().contextSwitchesPerSecond(), p.client().cpuPercent())
                : String.format(Locale.ROOT, "Tomcat CPU %.0f%%, Tomcat ctx switches %.0f/s, httpd CPU %.0f%%, "
                        + "MariaDB CPU %.0f%%, client CPU %.0f%%", p.server().cpuPercent(),
                        p.server().contextSwitchesPerSecond(), p.web().cpuPercent(), p.database().cpuPercent(),
                        p.client().cpuPercent());
        System.out.println(start + tiers + "; machine load average " + Machine.loadAverage());
    }
}
