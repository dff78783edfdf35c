package io.hybridconnector.rubbos.runner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.hybridconnector.bench.harness.tomcat.CatalinaBase;
import io.hybridconnector.bench.harness.cpu.Machine;
import io.hybridconnector.bench.harness.cpu.Taskset;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.data.DataSpec;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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

    @Mixin
    SweepOptions sweep = new SweepOptions();
    @Option(names = "--server-cpus", defaultValue = "0",
            description = "taskset CPU list for the server tier; 'none' not to pin (default: ${DEFAULT-VALUE})")
    String serverCpus;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Fig3Run()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        SweepOptions o = sweep;
        if (o.warmup < 0) {
            o.warmup = 20;
        }
        if (o.out == null) {
            o.out = Path.of("target", "rubbos-results",
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        Files.createDirectories(o.out);
        Fig3Report.clearPointFiles(o.out).forEach(f -> System.out.println("Deleted " + f + " (left by an earlier sweep)"));
        int cpus = Runtime.getRuntime().availableProcessors();
        String pin = pinning();
        DataSpec spec = DataSpec.ofScale(o.scale);
        Mix workload = Mix.of(o.mix);
        String setup = setup(pin, workload, spec, cpus);
        System.out.println(setup);
        List<SweepPoint> points = new ArrayList<>();
        long started = System.nanoTime();
        for (String name : o.connectors) {
            ConnectorChoice connector = ConnectorChoice.of(name);
            System.out.println("\n== " + connector.label() + " (" + connector.protocol + ")");
            List<String> serverArgs = new ArrayList<>(List.of("--connector", connector.label(), "--war",
                    o.war.toString(), "--scale", Double.toString(o.scale), "--pool-max", Integer.toString(o.poolMax)));
            o.attributes(connector).forEach((k, v) -> serverArgs.addAll(List.of("--connector-attr", k + "=" + v)));
            int jmxPort = o.diagnose ? CatalinaBase.freePort() : 0;
            try (ServerProcess server = ServerProcess.start(o.diagnose ? Diagnostics.jvmOptions(jmxPort) : List.of(),
                    serverArgs, pin, o.out.resolve("server-" + connector.label() + ".log"))) {
                points.addAll(new Sweep(o, workload, spec).run(connector, server.port(), o.warmup,
                        Sweep.Tiers.embedded(server.pid(), jmxPort), users -> { }));
            }
        }
        Path report = Fig3Report.write(points, setup, workload, o.out);
        System.out.println("\n" + Fig3Report.table(points));
        System.out.printf(Locale.ROOT, "Sweep took %.0f s. Report: %s%n", (System.nanoTime() - started) / 1e9,
                report.toAbsolutePath());
        return points.stream().allMatch(p -> p.result().errors() == 0) ? 0 : 1;
    }

    /** @return the server's taskset CPU list, or null when pinning is off or impossible */
    private String pinning() {
        if (serverCpus.equals("none")) {
            return null;
        }
        if (Runtime.getRuntime().availableProcessors() < 2 || Taskset.find().isEmpty()) {
            System.out.println("Not pinning the server: it needs taskset and at least 2 CPUs.");
            return null;
        }
        // This JVM (the client tier) goes off the server's CPUs, so the two tiers do not share a core.
        try {
            Taskset.pinAllThreads(ProcessHandle.current().pid(), Taskset.otherCpus(serverCpus));
        } catch (Exception e) {
            System.out.println("Could not pin the client away from the server: " + e);
        }
        return serverCpus;
    }

    private String setup(String pin, Mix workload, DataSpec spec, int cpus) {
        SweepOptions o = sweep;
        return String.format(Locale.ROOT, "Setup: %s, %d CPUs; Java %s. Server tier (embedded Tomcat 10.1 + H2 in "
                + "one JVM): %s. Client tier (this JVM): %s. Database: H2 in-process, scale %.2f (%,d users, %,d live "
                + "and %,d old stories). Workload: %s mix, think time mean %d ms, %d%% author sessions, logo fetched: "
                + "%s. Phases per point: %d s up, %d s measured, %d s down; warm-up %d s per server. JDBC pool "
                + "maxTotal %d; hybrid connector attributes %s; stock attributes %s.",
                Machine.cpuModel().orElse("unknown CPU"), cpus, Runtime.version(),
                pin == null ? "not pinned" : "pinned to CPU " + pin,
                pin == null ? "not pinned" : "the other CPUs", o.scale, spec.users(), spec.liveStories(),
                spec.oldStories(), workload.label(), o.thinkMillis, 10, !o.noImages, o.up, o.run, o.down, o.warmup,
                o.poolMax, o.hybridAttributes.isEmpty() ? "defaults" : o.hybridAttributes,
                o.stockAttributes.isEmpty() ? "defaults" : o.stockAttributes);
    }
}
