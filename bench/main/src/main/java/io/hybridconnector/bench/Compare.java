package io.hybridconnector.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.hybridconnector.bench.harness.cpu.Machine;
import io.hybridconnector.bench.harness.cpu.Pinning;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.measure.PerfSyscalls;
import io.hybridconnector.bench.harness.measure.ProcStats;
import io.hybridconnector.bench.harness.measure.ServerProbe;
import io.hybridconnector.bench.harness.report.Stats;
import io.hybridconnector.bench.harness.tomcat.ServiceUser;
import io.hybridconnector.bench.harness.tomcat.SideBySideTomcat;
import io.hybridconnector.bench.report.Measurement;
import io.hybridconnector.bench.report.ResultsTable;

/**
 * The main job: one real Tomcat distribution with stock NIO and our connector on two ports; JIT warm-up, then
 * interleaved rounds (each cell: NIO, then ours), then one side-by-side table. Runs on the main thread, which is
 * also the load generator's thread.
 */
public final class Compare {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static final List<String> CONNECTORS = List.of("nio", "ours");
    private static final List<String> LABELS = List.of("stock NIO", "ours (hybrid)");
    /** Host steal, as a share of the CPUs' time in a fairness round, above which the row is reported disturbed. */
    private static final double STEAL_DISTURBED = 0.02;
    /** The CPU time a heavy fairness request computes, from its path. */
    private static final Pattern COMPUTE_MS = Pattern.compile("compute\\?ms=(\\d+)");

    private Compare() {
    }

    public static void main(String[] args) throws Exception {
        CompareOptions o;
        try {
            o = CompareOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (o.help) {
            OUT.print(CompareOptions.HELP);
            return;
        }
        long started = System.nanoTime();
        Path target = o.target.toAbsolutePath();
        Path stage = (o.stage != null ? o.stage : o.target).toAbsolutePath().normalize();
        Path home = stage.resolve("dist/apache-tomcat-" + o.tomcatVersion);
        Path jar = stage.resolve("artifacts/hybrid-connector.jar");
        // Tomcat 9.0 is the javax.servlet line: the same samples, built for it.
        Path war = stage.resolve(o.tomcatVersion.startsWith("9.") ? "artifacts/samples-javax.war"
                : "artifacts/samples.war");
        for (Path p : List.of(home.resolve("bin/catalina.sh"), jar, war)) {
            if (!Files.exists(p)) {
                System.err.println("missing " + p + ": run `mvn -B -q -pl bench/main -am package -DskipTests`"
                        + " first (distributions unpacked: 9.0.104, 10.1.59 and 11.0.25)");
                System.exit(2);
            }
        }

        Pinning pinning = Pinning.detect(o.pin, 0, 1);
        pinning.pinThisProcessToClientCpu();
        boolean perf = o.perf && PerfSyscalls.works();
        List<String> jvmOptions = List.of(o.jvmOptions.trim().split("\\s+"));
        SideBySideTomcat.Config config = new SideBySideTomcat.Config(home, jar, war,
                target.resolve("run/base-" + o.tomcatVersion), o.javaHome, jvmOptions, o.nioAttributes, o.ourAttributes, pinning)
                .runningAs(ServiceUser.ensure(o.user));

        StringBuilder header = new StringBuilder();
        try (SideBySideTomcat tomcat = new SideBySideTomcat(config)) {
            OUT.println("Starting Apache Tomcat " + o.tomcatVersion + " (bin/catalina.sh run) ...");
            tomcat.start(CellSpec.sizePath("0.1"), Duration.ofSeconds(90));
            String version = firstLines(tomcat.jcmd("VM.version"), 3);
            String flags = tomcat.jcmd("VM.flags");
            header.append("## Stock NIO vs ours on Apache Tomcat ").append(o.tomcatVersion).append("\n\n")
                    .append("| item | value |\n|---|---|\n")
                    .append("| date | ").append(Instant.now()).append(" |\n")
                    .append("| machine | ").append(Machine.cpuModel().orElse(System.getProperty("os.arch"))).append(", ").append(Machine.onlineCpus())
                    .append(" CPUs, kernel ").append(System.getProperty("os.version")).append(" |\n")
                    .append("| Tomcat | ").append(home.getFileName()).append(" (real distribution, CATALINA_BASE ")
                    .append(target.relativize(tomcat.base())).append("), pid ").append(tomcat.pid()).append(" as ")
                    .append(ServiceUser.describe(tomcat.pid())).append(" |\n")
                    .append("| connectors | stock `").append(SideBySideTomcat.STOCK_PROTOCOL).append("` on ")
                    .append(tomcat.stockPort()).append(", ours `").append(SideBySideTomcat.OUR_PROTOCOL).append("` on ")
                    .append(tomcat.ourPort()).append(" (server.xml: ").append(target.relativize(tomcat.base()))
                    .append("/conf/server.xml) |\n")
                    .append("| Tomcat JVM | ").append(version.replace("\n", "; ")).append(" |\n")
                    .append("| Tomcat JVM options | `").append(o.jvmOptions).append("`; GC chosen: ")
                    .append(gc(flags)).append(" |\n")
                    .append("| pinning | ").append(pinning.describe()).append("; Tomcat allowed CPUs ")
                    .append(ProcStats.cpusAllowed(tomcat.pid())).append(", load generator allowed CPUs ")
                    .append(ProcStats.cpusAllowed(ProcessHandle.current().pid())).append(" |\n")
                    .append("| load generator | 1 thread, 1 NIO selector, closed loop, keep-alive, zero think time, ")
                    .append("JDK ").append(System.getProperty("java.version")).append(" |\n")
                    .append("| windows | JIT warm-up ").append(o.warmupSeconds).append(" s per connector; then ")
                    .append(o.rounds).append(" rounds x each cell x (NIO, ours): ").append(o.cellWarmupSeconds)
                    .append(" s unmeasured on fresh connections + ").append(o.durationSeconds)
                    .append(" s measured |\n")
                    .append("| syscalls | ").append(perf ? "perf stat tracepoints (8-byte writes = wake-ups, "
                            + "counted apart from socket writes)" : "not counted (perf missing or not permitted)")
                    .append(" |\n");
            String ourLine = ourStartLine(tomcat.logs());
            if (ourLine != null) {
                header.append("| our connector logged | `").append(ourLine).append("` |\n");
            }
            OUT.println();
            OUT.print(header);
            OUT.println();

            CellRunner runner = new CellRunner(tomcat.pid(), perf, target.resolve("run/perf"),
                    Duration.ofMillis((long) (o.timeoutSeconds * 1000)), pinning.serverCpu());
            int[] ports = { tomcat.stockPort(), tomcat.ourPort() };

            // JIT warm-up: no perf (nothing of it is kept), the same code paths otherwise.
            CellRunner warmRunner = new CellRunner(tomcat.pid(), false, target.resolve("run/perf"),
                    Duration.ofMillis((long) (o.timeoutSeconds * 1000)), pinning.serverCpu());
            Duration perCell = seconds(o.warmupSeconds / o.cells.size());
            for (int i = 0; i < CONNECTORS.size(); i++) {
                for (Measurement.Cell cell : o.cells) {
                    Measurement m = warmRunner.run(ports[i], cell, CONNECTORS.get(i), 0, Duration.ZERO, perCell);
                    OUT.printf("warm-up   %-13s %-16s %s%n", LABELS.get(i), cell.label(), brief(m));
                }
            }

            List<Measurement> all = new ArrayList<>();
            for (int round = 1; round <= o.rounds; round++) {
                for (Measurement.Cell cell : o.cells) {
                    for (int i = 0; i < CONNECTORS.size(); i++) {
                        Measurement m = runner.run(ports[i], cell, CONNECTORS.get(i), round,
                                seconds(o.cellWarmupSeconds), seconds(o.durationSeconds));
                        all.add(m);
                        OUT.printf("round %d/%d %-13s %-16s %s%n", round, o.rounds, LABELS.get(i), cell.label(),
                                brief(m));
                    }
                }
            }

            String fairness = fairness(o, ports, pinning, tomcat.pid());

            String table = ResultsTable.table(all, o.cells, CONNECTORS, LABELS) + fairness;
            String notes = notes(all, perf);
            OUT.println();
            OUT.print(table);
            OUT.println();
            OUT.print(notes);
            OUT.printf("%nTotal %.0f s.%n", (System.nanoTime() - started) / 1e9);
            if (o.results != null) {
                writeResults(o.results.toAbsolutePath(), header + "\n" + table + "\n" + notes, all);
            }
        }
    }

    /**
     * The fairness scenarios: an unmeasured pass of each per connector (the heavy servlets' JIT), then interleaved
     * rounds; returns the table, or "" when none are chosen.
     */
    private static String fairness(CompareOptions o, int[] ports, Pinning pinning, long pid)
            throws IOException, InterruptedException {
        if (o.fairness.isEmpty()) {
            return "";
        }
        Duration timeout = Duration.ofMillis((long) (Math.max(o.timeoutSeconds, 30) * 1000));
        Fairness warm = new Fairness(Duration.ZERO, seconds(2), timeout);
        for (int i = 0; i < CONNECTORS.size(); i++) {
            for (Fairness.Scenario s : o.fairness) {
                Fairness.Result r = warm.run(ports[i], s, CONNECTORS.get(i), 0);
                OUT.printf("warm-up   %-13s %-22s %s%n", LABELS.get(i), s.name(), Fairness.brief(r));
            }
        }
        Fairness fairness = new Fairness(seconds(o.cellWarmupSeconds), seconds(o.fairnessSeconds), timeout);
        ProcStats proc = new ProcStats(pid);
        List<Fairness.Result> results = new ArrayList<>();
        Map<String, Double> maxSteal = new LinkedHashMap<>();
        StringBuilder rounds = new StringBuilder();
        for (int round = 1; round <= o.rounds; round++) {
            for (Fairness.Scenario s : o.fairness) {
                for (int i = 0; i < CONNECTORS.size(); i++) {
                    long[] before = ProcStats.stealAndTotalTicks();
                    ServerProbe server = new ServerProbe(proc, pid, false, null, pinning.serverCpu());
                    Fairness.Result r = fairness.run(new InetSocketAddress("127.0.0.1", ports[i]), s,
                            CONNECTORS.get(i), round, server);
                    double steal = ProcStats.stealShare(before, ProcStats.stealAndTotalTicks());
                    maxSteal.merge(s.name(), steal, Math::max);
                    results.add(r);
                    String line = String.format("round %d/%d %-13s %-22s %s  host steal %s  %s", round, o.rounds,
                            LABELS.get(i), s.name(), Fairness.brief(r), Stats.format(steal),
                            serverShare(server.finish(), r));
                    OUT.println(line);
                    rounds.append(line).append('\n');
                }
            }
        }
        String cores = pinning.enabled() ? "1 core (taskset CPU " + pinning.serverCpu() + "; the load generators on "
                + "another)" : Machine.onlineCpus() + " cores shared with the load generators";
        return "\n" + Fairness.table(results, o.fairness, CONNECTORS, LABELS, cores) + hostSteal(maxSteal)
                + "\nEach fairness round, in the order run:\n\n```\n" + rounds + "```\n";
    }

    /**
     * The server's side of one fairness round, for the log: its process's CPU as a share of the window, its context
     * switches per light request, and, where the heavy requests compute a known CPU time ({@code compute?ms=}), the
     * CPU left per light request once theirs is taken off. Tells a round whose light requests got less of the CPU
     * from one whose light requests each cost more.
     */
    private static String serverShare(ServerProbe.Delta d, Fairness.Result r) {
        double window = r.light().windowNanos();
        long light = Math.max(1, r.light().requests());
        Matcher computing = COMPUTE_MS.matcher(r.scenario().path() == null ? "" : r.scenario().path());
        String perLight = "";
        if (computing.find() && r.heavy() != null) {
            double heavyNanos = r.heavy().requests() * Long.parseLong(computing.group(1)) * 1e6;
            perLight = String.format(", light %s us CPU/req beside heavy %s of it", Stats.format((d.cpuNanos()
                    - heavyNanos) / light / 1e3), Stats.format(heavyNanos / window));
        }
        return String.format("server CPU %s of the window, %s cs/light req%s", Stats.format(d.cpuNanos() / window),
                Stats.format((double) d.contextSwitches() / light), perLight);
    }

    /**
     * The most host steal time in any round of each fairness row, as a share of the CPUs' time: those rows measure
     * scheduling, which a busy hypervisor disturbs for both connectors alike.
     */
    private static String hostSteal(Map<String, Double> maxSteal) {
        StringBuilder sb = new StringBuilder("\nHost steal time (this virtual machine's CPUs were ready to run "
                + "while the hypervisor ran something else), most in any round, share of the CPUs' time:");
        List<String> disturbed = new ArrayList<>();
        for (Map.Entry<String, Double> e : maxSteal.entrySet()) {
            sb.append(' ').append(e.getKey()).append(' ').append(Stats.format(e.getValue())).append(';');
            if (e.getValue() > STEAL_DISTURBED) {
                disturbed.add(e.getKey());
            }
        }
        sb.setLength(sb.length() - 1);
        return sb.append(disturbed.isEmpty() ? ".\n" : ". Over " + Stats.format(STEAL_DISTURBED) + " in "
                + String.join(", ", disturbed) + ": the host disturbed those rows' latencies and throughputs for "
                + "both connectors; run them again.\n").toString();
    }

    private static String brief(Measurement m) {
        var c = m.client();
        var x = m.metrics();
        return String.format("%9s req/s  p50 %6s ms  p99 %6s ms  cs/req %6s  CPU %6s us/req  write/req %5s  "
                + "client CPU %4s  server CPU busy %4s (Tomcat %4s)  errors %s", Stats.format(c.requestsPerSecond()),
                Stats.format(c.latencyMillis(50)), Stats.format(c.latencyMillis(99)),
                Stats.format(x.get(Measurement.Metric.CS)), Stats.format(x.get(Measurement.Metric.CPU)),
                Stats.format(x.get("write/req")), Stats.format(c.clientCpuShare()),
                Stats.format(x.get(Measurement.Metric.SERVER_CPU_BUSY)),
                Stats.format(x.get(Measurement.Metric.TOMCAT_CPU)), c.errorsText()
                        + (m.server().perfProblem() != null ? "  perf: " + m.server().perfProblem() : ""));
    }

    private static String notes(List<Measurement> all, boolean perf) {
        double maxClient = all.stream().mapToDouble(m -> m.client().clientCpuShare()).max().orElse(0);
        long errors = all.stream().mapToLong(m -> m.client().errorCount()).sum();
        StringBuilder sb = new StringBuilder();
        sb.append("Medians over rounds with (min-max); the first ratio column is ours / stock NIO of the medians, the ")
                .append("second the median (min-max) of each round's own ratio (the two ran back to back). ")
                .append("Counted: complete responses, status 200, framed by Content-Length or chunked, body of the ")
                .append("requested length. Server counters: /proc/PID/stat utime+stime and the sum of ")
                .append("voluntary+nonvoluntary_ctxt_switches over /proc/PID/task/*/status, deltas over the ")
                .append("measured window, divided by its requests")
                .append(perf ? "; syscalls from perf stat over the same window.\n" : ".\n");
        sb.append("Errors in all measured windows: ").append(errors).append(". Highest load generator CPU share: ")
                .append(Stats.format(maxClient))
                .append(maxClient > 0.9 ? " (near 1: the client may limit req/s in that window)"
                        : " (below 0.9: the client was not the bottleneck)")
                .append(". The load generator's CPU us/req is the same code's cost for both connectors: it tells how ")
                .append("fast this host ran, so compare it first when comparing these figures with another run's.\n");
        double others = all.stream().mapToDouble(m -> m.metrics().get(Measurement.Metric.SERVER_CPU_BUSY)
                - m.metrics().get(Measurement.Metric.TOMCAT_CPU)).filter(v -> !Double.isNaN(v)).max().orElse(0);
        sb.append("Other processes on the server CPU: up to ").append(Stats.format(Math.max(0, others)))
                .append(" of it in a window")
                .append(others > 0.05 ? " - the machine was shared, so req/s and latency are disturbed (a single "
                        + "event loop gets a smaller share of a contended CPU than a pool of runnable threads); "
                        + "counts per request (CPU, context switches, syscalls) are the numbers to trust.\n"
                        : ".\n");
        return sb.toString();
    }

    private static void writeResults(Path dir, String markdown, List<Measurement> all) throws IOException {
        Files.createDirectories(dir);
        List<String> csv = new ArrayList<>();
        csv.add(ResultsTable.csvHeader());
        for (Measurement m : all) {
            csv.add(ResultsTable.csvRow(m));
        }
        Files.write(dir.resolve("results.csv"), csv);
        Files.writeString(dir.resolve("results.md"), markdown);
        OUT.println("Wrote " + dir.resolve("results.csv") + " and " + dir.resolve("results.md"));
    }

    private static String ourStartLine(String logs) {
        for (String line : logs.split("\n")) {
            if (line.contains("HybridHttp11Protocol") && line.contains("threads=")) {
                String s = line.trim();
                int at = s.indexOf("HybridHttp11Protocol");
                return s.substring(at).replace("|", "/");
            }
        }
        return null;
    }

    private static String gc(String flags) {
        Matcher m = Pattern.compile("-XX:\\+Use(\\w+)GC\\b").matcher(flags);
        return m.find() ? m.group(1) + "GC" : "? (jcmd VM.flags: " + firstLines(flags, 2) + ")";
    }

    private static String firstLines(String s, int n) {
        String[] lines = s.strip().split("\n");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines.length && i < n; i++) {
            if (lines[i].matches("\\d+:")) {
                n++; // jcmd's "PID:" line
                continue;
            }
            sb.append(sb.length() > 0 ? "\n" : "").append(lines[i].strip());
        }
        return sb.toString();
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
