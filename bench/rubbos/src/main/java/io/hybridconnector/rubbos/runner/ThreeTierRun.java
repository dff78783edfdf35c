package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.hybridconnector.bench.harness.tomcat.CatalinaBase;
import io.hybridconnector.bench.harness.cpu.Machine;
import io.hybridconnector.bench.harness.cpu.Taskset;
import io.hybridconnector.bench.harness.measure.ProcStats;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.data.DataSpec;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The paper's deployment of Fig 3: emulated users -> Apache httpd (mod_proxy_http) -> a real Tomcat distribution
 * with stock NIO or the hybrid connector, pinned to one core -> MariaDB. For each connector: start Tomcat (or
 * {@code --copies N} Tomcats behind mod_proxy_balancer) and httpd, warm up, sweep the users; per point the client's
 * throughput and response times, Tomcat's CPU and context switches, httpd's and MariaDB's CPU. Main thread.
 */
@Command(name = "rubbos-3tier", mixinStandardHelpOptions = true,
        description = "RUBBoS through Apache httpd -> Tomcat (stock NIO or hybrid) -> MariaDB, sweeping users.")
public final class ThreeTierRun implements Callable<Integer> {

    /** When to (re)load MariaDB's data ({@code --load}). */
    enum DataLoad { AUTO, ALWAYS, NEVER }

    /** What to do when httpd or MariaDB is not installed ({@code --if-missing}). */
    enum WhenMissing { FAIL, EMBEDDED }

    @Mixin
    SweepOptions sweep = new SweepOptions();
    @Option(names = "--tomcat-home", defaultValue = "${sys:rubbos.tomcat.home:-target/tomcat-dist/apache-tomcat-10.1.59}",
            description = "an unpacked Tomcat distribution (default: ${DEFAULT-VALUE})")
    Path tomcatHome;
    @Option(names = "--tomcat-lib", defaultValue = "${sys:rubbos.tomcat.lib:-target/tomcat-lib}",
            description = "jars for Tomcat's lib/: the connector and the MariaDB driver (default: ${DEFAULT-VALUE})")
    Path tomcatLib;
    @Option(names = "--load", defaultValue = "auto", description = "before each point: auto (load when the database "
            + "does not hold today's data set of this scale exactly as loaded; a read/write point changes it), always "
            + "or never (default: ${DEFAULT-VALUE})")
    DataLoad load;
    @Option(names = "--copies", defaultValue = "1", description = "Tomcat instances behind mod_proxy_balancer "
            + "(the N-copy model; 1 = mod_proxy_http to one Tomcat) (default: ${DEFAULT-VALUE})")
    int copies;
    @Option(names = "--tomcat-cpus", split = ",", defaultValue = "0", description = "CPU of each Tomcat copy "
            + "(copy i gets entry i mod n; 'none' not to pin) (default: ${DEFAULT-VALUE})")
    List<String> tomcatCpus;
    @Option(names = "--tomcat-cpu-share", defaultValue = "0", description = "cap each "
            + "Tomcat at this fraction of its CPU with a CFS quota (cgroup cpu controller, root), so that Tomcat is "
            + "the bottleneck on a machine too small to give the other tiers cores of their own; 0 = no cap "
            + "(default: ${DEFAULT-VALUE})")
    double tomcatCpuShare;
    @Option(names = "--front-cpus", defaultValue = "1", description = "taskset CPU list of httpd and of this JVM "
            + "(the client); 'none' not to pin (default: ${DEFAULT-VALUE})")
    String frontCpus;
    @Option(names = "--httpd-processes", defaultValue = "4",
            description = "httpd child processes (default: ${DEFAULT-VALUE})")
    int httpdProcesses;
    @Option(names = "--httpd-threads", defaultValue = "100",
            description = "worker threads per httpd child (default: ${DEFAULT-VALUE})")
    int httpdThreads;
    @Option(names = "--tomcat-heap", defaultValue = "1g", description = "Tomcat's -Xms/-Xmx (default: ${DEFAULT-VALUE})")
    String heap;
    @Option(names = "--if-missing", defaultValue = "fail", description = "fail (print how to install httpd or "
            + "MariaDB) or embedded (run the 2-tier quick mode with H2 instead) (default: ${DEFAULT-VALUE})")
    WhenMissing ifMissing;
    @Option(names = "--work", defaultValue = "target/rubbos-3tier-work",
            description = "where the CATALINA_BASEs and httpd's configuration go (default: ${DEFAULT-VALUE})")
    Path work;

    public static void main(String[] args) {
        System.exit(commandLine(new ThreeTierRun()).execute(args));
    }

    /** @return the command line of {@code run}, its choices ({@code --load}, {@code --if-missing}) in any case */
    static CommandLine commandLine(ThreeTierRun run) {
        return new CommandLine(run).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** CPUs of the machine, counted before this JVM pins itself. */
    private final int machineCpus = Runtime.getRuntime().availableProcessors();

    /** @return {@code --warmup}, or its default: 240 s when Tomcat is capped, 20 s otherwise */
    long warmupSeconds() {
        return sweep.warmup >= 0 ? sweep.warmup : tomcatCpuShare > 0 ? 240 : 20;
    }

    @Override
    public Integer call() throws Exception {
        sweep.warmup = warmupSeconds();
        if (sweep.out == null) {
            sweep.out = Path.of("target", "rubbos-results", "3tier-" + LocalDateTime.now().format(
                    DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        Optional<String> missing = missing();
        if (missing.isPresent()) {
            System.out.println(missing.get());
            if (ifMissing == WhenMissing.EMBEDDED) {
                System.out.println("\n--if-missing=embedded: running the 2-tier quick mode (embedded Tomcat + H2).");
                return new CommandLine(new Fig3Run()).execute(sweep.toArgs().toArray(String[]::new));
            }
            return 2;
        }
        MariaDb.ensureRunning();
        Files.createDirectories(sweep.out);
        Fig3Report.clearPointFiles(sweep.out).forEach(f -> System.out.println("Deleted " + f + " (left by an earlier sweep)"));
        JdbcSettings jdbc = JdbcSettings.mariadb();
        DataSpec spec = DataSpec.ofScale(sweep.scale);
        if (frontCpus.equals("none")) {
            frontCpus = null;
        } else {
            try {
                Taskset.pinAllThreads(ProcessHandle.current().pid(), frontCpus);
            } catch (IOException | InterruptedException e) {
                System.out.println("Could not pin the client to CPUs " + frontCpus + ": " + e);
            }
        }
        fitPoolsToDatabase(jdbc);
        if (load != DataLoad.NEVER) {
            // Before the first Tomcat starts: its readiness check reads the home page, which needs the tables.
            System.out.println("MariaDB: " + MariaDb.loadIfStale(jdbc, spec, false));
        }
        Mix workload = Mix.of(sweep.mix);
        String setup = setup(jdbc, spec, workload);
        System.out.println(setup);
        Files.createDirectories(work);
        List<SweepPoint> points = new ArrayList<>();
        long started = System.nanoTime();
        for (String name : sweep.connectors) {
            ConnectorChoice connector = ConnectorChoice.of(name);
            System.out.println("\n== " + connector.label() + " (" + connector.protocol + "), " + copies
                    + " Tomcat(s) behind httpd");
            List<RubbosTomcat> tomcats = new ArrayList<>();
            List<Integer> jmxPorts = new ArrayList<>();
            List<CpuQuota> quotas = new ArrayList<>();
            Httpd[] front = new Httpd[1];
            // Ctrl-C or kill must not leave Tomcat and httpd running on the benchmark's ports and cores.
            Thread cleanUp = new Thread(() -> stopAll(front[0], tomcats), "stop-tiers");
            Runtime.getRuntime().addShutdownHook(cleanUp);
            Httpd httpd = null;
            try {
                for (int i = 0; i < copies; i++) {
                    int jmx = sweep.diagnose ? CatalinaBase.freePort() : 0;
                    jmxPorts.add(jmx);
                    RubbosTomcat t = RubbosTomcat.start(tomcatSpec(connector, i, jmx), Duration.ofSeconds(120));
                    tomcats.add(t);
                    if (tomcatCpuShare > 0) {
                        quotas.add(CpuQuota.limit(t.pid(), "rubbos-tomcat-" + connector.label() + "-" + i,
                                tomcatCpuShare));
                    }
                    System.out.println("  Tomcat " + i + ": pid " + t.pid() + ", port " + t.port() + ", CPUs "
                            + Optional.ofNullable(cpuOf(i)).orElse("any")
                            + (quotas.isEmpty() ? "" : ", capped at " + quotas.get(i)) + ", " + t.connectorElement());
                }
                httpd = front[0] = Httpd.start(new Httpd.Spec(work.resolve("httpd-" + connector.label()).toAbsolutePath(),
                        CatalinaBase.freePort(), tomcats.stream().map(RubbosTomcat::port).toList(), httpdProcesses,
                        httpdThreads, frontCpus));
                Files.copy(work.resolve("httpd-" + connector.label() + "/httpd.conf"),
                        sweep.out.resolve("httpd-" + connector.label() + ".conf"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.writeString(sweep.out.resolve("server-" + connector.label() + ".xml"), tomcats.get(0).serverXml());
                int port = httpd.port();
                System.out.println("  httpd: pids " + httpd.pids() + ", port " + port + ", CPUs "
                        + Optional.ofNullable(frontCpus).orElse("any"));
                Httpd web = httpd;
                points.addAll(new Sweep(sweep, workload, spec).run(connector, port, sweep.warmup,
                        new Sweep.Tiers(tomcats.stream().map(RubbosTomcat::pid).toList(), jmxPorts, web::pids,
                                MariaDb.pid()), users -> {
                            if (load != DataLoad.NEVER) {
                                // Every point starts from the data as generated, not from what the warm-up or the
                                // points before wrote (stories without comments on top of the home page change the walk).
                                System.out.println("  MariaDB: " + MariaDb.loadIfStale(jdbc, spec, load == DataLoad.ALWAYS));
                            }
                        }));
            } finally {
                quotas.forEach(q -> System.out.println("  CPU cap: " + q.throttling()));
                stopAll(httpd, tomcats);
                quotas.forEach(CpuQuota::close);
                Runtime.getRuntime().removeShutdownHook(cleanUp);
            }
        }
        Path report = Fig3Report.write(points, setup, workload, sweep.out, "# RUBBoS Fig 3, 3-tier: httpd -> Tomcat -> "
                + "MariaDB, stock NIO vs the hybrid connector");
        System.out.println("\n" + Fig3Report.table(points));
        System.out.printf(Locale.ROOT, "Sweep took %.0f s. Report: %s%n", (System.nanoTime() - started) / 1e9,
                report.toAbsolutePath());
        return points.stream().allMatch(p -> p.result().errors() == 0) ? 0 : 1;
    }

    /**
     * N copies open N pools: MariaDB refuses connections past {@code max_connections} (151 by default), which shows
     * as "Too many connections" ERROR pages (measured: 158 errors at 1000 users with 2 copies of 100). Lowers the
     * pool size per copy to fit, and says so.
     */
    private void fitPoolsToDatabase(JdbcSettings jdbc) {
        try (Connection c = jdbc.connect(); Statement st = c.createStatement();
             ResultSet r = st.executeQuery("SELECT @@max_connections")) {
            int max = r.next() ? r.getInt(1) : Integer.MAX_VALUE;
            int fit = (max - 10) / copies;
            if ((long) sweep.poolMax * copies > max - 10) {
                System.out.printf(Locale.ROOT, "MariaDB allows %d connections; %d copies x pool %d would not fit, so "
                        + "each copy's pool gets maxTotal %d (raise max_connections in MariaDB's configuration to keep "
                        + "%d).%n", max, copies, sweep.poolMax, fit, sweep.poolMax);
                sweep.poolMax = fit;
            }
        } catch (SQLException e) {
            System.out.println("Could not read MariaDB's max_connections: " + e.getMessage());
        }
    }

    private RubbosTomcat.Spec tomcatSpec(ConnectorChoice connector, int copy, int jmxPort) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(tomcatLib)) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        List<String> jvm = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap,
                "-Drubbos.jdbc.maxTotal=" + sweep.poolMax));
        if (jmxPort > 0) {
            jvm.addAll(Diagnostics.jvmOptions(jmxPort));
        }
        return new RubbosTomcat.Spec(tomcatHome.toAbsolutePath(),
                work.resolve("tomcat-" + connector.label() + "-" + copy).toAbsolutePath(), connector,
                connector == ConnectorChoice.HYBRID ? sweep.hybridAttributes : sweep.stockAttributes, CatalinaBase.freePort(),
                sweep.war.toAbsolutePath(), jars, jvm, cpuOf(copy));
    }

    private String cpuOf(int copy) {
        String cpu = tomcatCpus.get(copy % tomcatCpus.size());
        return cpu.equals("none") ? null : cpu;
    }

    /** @return what this machine lacks for the 3-tier mode, with the commands that fix it */
    private Optional<String> missing() {
        List<String> problems = new ArrayList<>();
        if (!Httpd.installed()) {
            problems.add(Httpd.HOW_TO_GET);
        }
        if (!MariaDb.reachable() && !Files.isExecutable(MariaDb.SERVER)) {
            problems.add(MariaDb.HOW_TO_GET);
        }
        if (!Files.isRegularFile(tomcatHome.resolve("bin/catalina.sh"))) {
            problems.add("No Tomcat distribution at " + tomcatHome + ": build the runner first (mvn -B -pl "
                    + "bench/rubbos -am package -DskipTests unpacks org.apache.tomcat:tomcat:10.1.59:tar.gz there).");
        }
        if (!Files.isDirectory(tomcatLib)) {
            problems.add("No " + tomcatLib + " (the connector and MariaDB driver jars): build the runner first.");
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("\n\n", problems));
    }

    private static void stopAll(Httpd httpd, List<RubbosTomcat> tomcats) {
        try {
            if (httpd != null) {
                httpd.close();
            }
            for (RubbosTomcat t : tomcats) {
                t.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String firstLine(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            return text.lines().findFirst().orElse("?").strip();
        } catch (IOException | InterruptedException e) {
            return "?";
        }
    }

    private String setup(JdbcSettings jdbc, DataSpec spec, Mix workload) {
        String cpu = Machine.cpuModel().orElse("unknown CPU");
        String dbVersion = "?";
        try (Connection c = jdbc.connect(); Statement st = c.createStatement();
             ResultSet r = st.executeQuery("SELECT VERSION()")) {
            dbVersion = r.next() ? r.getString(1) : "?";
        } catch (Exception e) {
            dbVersion = "? (" + e.getMessage() + ")";
        }
        Optional<Long> db = MariaDb.pid();
        StringBuilder tomcatPins = new StringBuilder();
        for (int i = 0; i < copies; i++) {
            tomcatPins.append(i == 0 ? "" : ", ").append("copy ").append(i).append(" on CPU ")
                    .append(Optional.ofNullable(cpuOf(i)).orElse("any"));
        }
        if (tomcatCpuShare > 0) {
            tomcatPins.append(String.format(Locale.ROOT, ", each capped at %.0f%% of its CPU by a CFS quota (%d ms "
                    + "period) so that Tomcat, not CPU 1, is the bottleneck", tomcatCpuShare * 100,
                    CpuQuota.PERIOD_MICROS / 1000));
        }
        return String.format(Locale.ROOT, "Setup: %s, %d CPUs; Java %s. Where the tiers ran: Tomcat %s (%s, %d "
                        + "cop%s: %s; heap %s; JDBC pool maxTotal %d per copy); Apache httpd (%s, event MPM, %d x %d "
                        + "workers, mod_proxy_%s) on CPUs %s; client (this JVM) on CPUs %s; MariaDB %s (%s) on CPUs %s, "
                        + "started outside the runner and not pinned by it. Data: scale %.2f (%,d users, %,d live and %,d"
                        + " old stories). Workload: %s mix, think time mean %d ms, 10%% author sessions, logo fetched: "
                        + "%s. Phases per point: %d s up, %d s measured, %d s down; warm-up %d s per connector. Hybrid "
                        + "connector attributes %s; stock attributes %s.",
                cpu, machineCpus, Runtime.version(),
                tomcatHome.getFileName(), "catalina.sh run", copies, copies == 1 ? "y" : "ies", tomcatPins, heap, sweep.poolMax,
                firstLine(Httpd.BINARY.toString(), "-v").replace("Server version: ", ""), httpdProcesses,
                httpdThreads, copies == 1 ? "http" : "balancer (byrequests)",
                Optional.ofNullable(frontCpus).orElse("any"), Optional.ofNullable(frontCpus).orElse("any"),
                dbVersion, db.map(p -> "pid " + p).orElse("pid unknown"), db.map(ProcStats::cpusAllowed).orElse("?"),
                sweep.scale, spec.users(), spec.liveStories(), spec.oldStories(), workload.label(), sweep.thinkMillis, !sweep.noImages,
                sweep.up, sweep.run, sweep.down, sweep.warmup, sweep.hybridAttributes.isEmpty() ? "defaults" : sweep.hybridAttributes,
                sweep.stockAttributes.isEmpty() ? "defaults" : sweep.stockAttributes);
    }
}
