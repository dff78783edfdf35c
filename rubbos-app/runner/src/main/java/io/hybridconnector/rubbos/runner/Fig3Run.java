package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.rubbos.client.ClientConfig;
import io.hybridconnector.rubbos.client.ClientEmulator;
import io.hybridconnector.rubbos.client.stats.Phase;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.data.DataSpec;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One command for the Fig 3 experiment: for each connector, start the server tier (embedded Tomcat + H2 in a
 * child JVM pinned to one core, so that it is the bottleneck as in the paper), warm it up, then sweep the number
 * of emulated users; measure client-side throughput and response time and server-side CPU and context switches
 * over each measured phase; write CSV, markdown and PNG.
 * <p>
 * The defaults are the quick mode: a time-compressed workload (0.5 s mean think time instead of 7 s, so one
 * emulated user offers the load of fourteen) that reaches saturation of one core with a few hundred users in
 * under ten minutes. Main thread.
 */
@Command(name = "rubbos-fig3", mixinStandardHelpOptions = true,
        description = "RUBBoS sweep of emulated users, stock NIO against the hybrid connector (paper Fig 3).")
public final class Fig3Run implements Callable<Integer> {

    @Option(names = "--war", defaultValue = "${sys:rubbos.war:-target/wars/rubbos.war}",
            description = "the RUBBoS WAR (default: ${DEFAULT-VALUE})")
    Path war;
    @Option(names = "--connectors", split = ",", defaultValue = "stock,hybrid",
            description = "connectors to compare (default: ${DEFAULT-VALUE})")
    List<String> connectors;
    @Option(names = "--users", split = ",", defaultValue = "100,300,600,1000",
            description = "emulated users per point (default: ${DEFAULT-VALUE})")
    List<Integer> users;
    @Option(names = "--mix", defaultValue = "browse-only", description = "browse-only or read-write "
            + "(default: ${DEFAULT-VALUE}, the paper's)")
    String mix;
    @Option(names = "--think-ms", defaultValue = "500",
            description = "mean think time, ms; the original is 7000 (default: ${DEFAULT-VALUE})")
    long thinkMillis;
    @Option(names = "--warmup", defaultValue = "20",
            description = "seconds of unrecorded load on a fresh server, for the JIT (default: ${DEFAULT-VALUE})")
    long warmup;
    @Option(names = "--up", defaultValue = "10", description = "up-ramp seconds per point (default: ${DEFAULT-VALUE})")
    long up;
    @Option(names = "--run", defaultValue = "30", description = "measured seconds per point (default: ${DEFAULT-VALUE})")
    long run;
    @Option(names = "--down", defaultValue = "2", description = "down-ramp seconds per point (default: ${DEFAULT-VALUE})")
    long down;
    @Option(names = "--scale", defaultValue = "" + DataSpec.QUICK_SCALE,
            description = "data scale (default: ${DEFAULT-VALUE}; 1.0 = the original's 500,000 users)")
    double scale;
    @Option(names = "--server-cpus", defaultValue = "0",
            description = "taskset CPU list for the server tier; 'none' not to pin (default: ${DEFAULT-VALUE})")
    String serverCpus;
    @Option(names = "--no-images", description = "do not fetch the logo with every page")
    boolean noImages;
    @Option(names = "--out", description = "output directory (default: target/rubbos-results/<date-time>)")
    Path out;
    @Option(names = "--hybrid-attr", description = "an attribute of the hybrid connector as in server.xml, "
            + "name=value (repeatable), e.g. threads=200")
    Map<String, String> hybridAttributes = new LinkedHashMap<>();
    @Option(names = "--stock-attr", description = "an attribute of the stock NIO connector, name=value "
            + "(repeatable), e.g. maxThreads=200")
    Map<String, String> stockAttributes = new LinkedHashMap<>();
    @Option(names = "--pool-max", defaultValue = "100",
            description = "the JDBC pool's maxTotal in the WAR's context.xml (default: ${DEFAULT-VALUE})")
    int poolMax;
    @Option(names = "--dumps", defaultValue = "10", description = "thread dumps per point with --diagnose, 250 ms "
            + "apart from the middle of the measured phase (default: ${DEFAULT-VALUE})")
    int dumps;
    @Option(names = "--diagnose", description = "open a JMX port on the server; per point, zero the hybrid "
            + "connector's counters when the measured phase starts, take a thread dump in its middle and read the "
            + "connector's, the pool's and the thread pool's MBeans at its end (files in <out>/diag)")
    boolean diagnose;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Fig3Run()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (out == null) {
            out = Path.of("target", "rubbos-results",
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        Files.createDirectories(out);
        Report.clearPointFiles(out).forEach(f -> System.out.println("Deleted " + f + " (left by an earlier sweep)"));
        int cpus = Runtime.getRuntime().availableProcessors();
        String pin = pinning();
        DataSpec spec = DataSpec.ofScale(scale);
        Mix workload = Mix.of(mix);
        String setup = setup(pin, workload, spec, cpus);
        System.out.println(setup);
        List<SweepPoint> points = new ArrayList<>();
        long started = System.nanoTime();
        for (String name : connectors) {
            ConnectorChoice connector = ConnectorChoice.of(name);
            System.out.println("\n== " + connector.label() + " (" + connector.protocol + ")");
            List<String> serverArgs = new ArrayList<>(List.of("--connector", connector.label(), "--war",
                    war.toString(), "--scale", Double.toString(scale), "--pool-max", Integer.toString(poolMax)));
            (connector == ConnectorChoice.HYBRID ? hybridAttributes : stockAttributes).forEach((k, v) ->
                    serverArgs.addAll(List.of("--connector-attr", k + "=" + v)));
            int jmxPort = diagnose ? Diagnostics.freePort() : 0;
            try (ServerProcess server = ServerProcess.start(diagnose ? Diagnostics.jvmOptions(jmxPort) : List.of(),
                    serverArgs, pin, out.resolve("server-" + connector.label() + ".log"))) {
                Diagnostics diag = diagnose ? new Diagnostics(server.pid(), jmxPort, out.resolve("diag")) : null;
                ClientConfig base = new ClientConfig("127.0.0.1", server.port(), "/rubbos", 1, workload,
                        thinkMillis, Duration.ofSeconds(up), Duration.ofSeconds(run), Duration.ofSeconds(down), 0.10,
                        spec.users(), spec.authors(), 1000, !noImages, 7, 10);
                if (warmup > 0) {
                    System.out.println("  warm-up: " + warmup + " s, 32 users without think time (not recorded)");
                    new ClientEmulator(new ClientConfig("127.0.0.1", server.port(), "/rubbos", 32, workload, 0,
                            Duration.ZERO, Duration.ofSeconds(warmup), Duration.ZERO, 0.10, spec.users(),
                            spec.authors(), 1000, !noImages, 99, 0), System.out).run();
                }
                ProcessMeter meter = new ProcessMeter(server.pid());
                ProcessMeter self = new ProcessMeter(ProcessHandle.current().pid());
                for (int n : users) {
                    ProcessMeter.Sample[] window = new ProcessMeter.Sample[2];
                    ProcessMeter.Sample[] mine = new ProcessMeter.Sample[2];
                    String pointName = connector.label() + "-" + n + "users";
                    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
                    RunResult result = new ClientEmulator(base.withUsers(n), System.out).run(phase -> {
                        if (phase == Phase.RUN) {
                            if (diag != null) {
                                diag.resetCounters();
                                diag.startSched();
                                timer.schedule(() -> diag.writeThreadDump(pointName, dumps), run / 2, TimeUnit.SECONDS);
                            }
                            window[0] = meter.sample();
                            mine[0] = self.sample();
                        } else if (phase == Phase.DOWN_RAMP || (phase == null && window[1] == null)) {
                            window[1] = meter.sample();
                            mine[1] = self.sample();
                            if (diag != null) {
                                diag.writeMBeans(pointName);
                                System.out.println("  sched: " + diag.writeSched(pointName));
                            }
                        }
                    });
                    timer.shutdown();
                    timer.awaitTermination(60, TimeUnit.SECONDS);
                    SweepPoint point = new SweepPoint(connector, n, result, ProcessMeter.between(window[0], window[1]),
                            ProcessMeter.between(mine[0], mine[1]));
                    points.add(point);
                    Report.writePoint(point, out);
                    System.out.printf(Locale.ROOT, "  => %s %d users: %.1f interactions/s, %d errors, mean %.1f ms,"
                            + " p50 %.1f ms, p99 %.1f ms, server CPU %.0f%%, server ctx switches %.0f/s, client CPU %.0f%%;"
                            + " machine load average %s%n",
                            connector.label(), n, result.throughput(), result.errors(), result.meanMs(),
                            result.p50Ms(), result.p99Ms(), point.server().cpuPercent(),
                            point.server().contextSwitchesPerSecond(), point.client().cpuPercent(),
                            ThreeTierRun.loadAverage());
                }
            }
        }
        Path report = Report.write(points, setup, workload, out);
        System.out.println("\n" + Report.table(points));
        System.out.printf(Locale.ROOT, "Sweep took %.0f s. Report: %s%n", (System.nanoTime() - started) / 1e9,
                report.toAbsolutePath());
        return points.stream().allMatch(p -> p.result().errors() == 0) ? 0 : 1;
    }

    /** @return the server's taskset CPU list, or null when pinning is off or impossible */
    private String pinning() {
        if (serverCpus.equals("none")) {
            return null;
        }
        if (Runtime.getRuntime().availableProcessors() < 2 || !Files.isExecutable(Path.of("/usr/bin/taskset"))) {
            System.out.println("Not pinning the server: it needs taskset and at least 2 CPUs.");
            return null;
        }
        pinSelfAwayFrom(serverCpus);
        return serverCpus;
    }

    /** Moves this JVM (the client tier) off the server's CPUs, so the two tiers do not share a core. */
    private static void pinSelfAwayFrom(String serverCpus) {
        int cpus = Runtime.getRuntime().availableProcessors();
        List<String> rest = new ArrayList<>();
        List<String> taken = List.of(serverCpus.split(","));
        for (int i = 0; i < cpus; i++) {
            if (!taken.contains(Integer.toString(i))) {
                rest.add(Integer.toString(i));
            }
        }
        try {
            new ProcessBuilder("taskset", "-a", "-p", "-c", String.join(",", rest),
                    Long.toString(ProcessHandle.current().pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException | InterruptedException e) {
            System.out.println("Could not pin the client away from the server: " + e);
        }
    }

    private String setup(String pin, Mix workload, DataSpec spec, int cpus) {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse(cpu);
        } catch (IOException ignored) {
            // not Linux
        }
        return String.format(Locale.ROOT, "Setup: %s, %d CPUs; Java %s. Server tier (embedded Tomcat 10.1 + H2 in "
                + "one JVM): %s. Client tier (this JVM): %s. Database: H2 in-process, scale %.2f (%,d users, %,d live "
                + "and %,d old stories). Workload: %s mix, think time mean %d ms, %d%% author sessions, logo fetched: "
                + "%s. Phases per point: %d s up, %d s measured, %d s down; warm-up %d s per server. JDBC pool "
                + "maxTotal %d; hybrid connector attributes %s; stock attributes %s.",
                cpu, cpus, Runtime.version(),
                pin == null ? "not pinned" : "pinned to CPU " + pin,
                pin == null ? "not pinned" : "the other CPUs", scale, spec.users(), spec.liveStories(),
                spec.oldStories(), workload.label(), thinkMillis, 10, !noImages, up, run, down, warmup, poolMax,
                hybridAttributes.isEmpty() ? "defaults" : hybridAttributes,
                stockAttributes.isEmpty() ? "defaults" : stockAttributes);
    }
}
