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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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

    @Option(names = "--war", defaultValue = "${sys:rubbos.war:-target/wars/rubbos.war}",
            description = "the RUBBoS WAR (default: ${DEFAULT-VALUE})")
    Path war;
    @Option(names = "--tomcat-home", defaultValue = "${sys:rubbos.tomcat.home:-target/tomcat-dist/apache-tomcat-10.1.59}",
            description = "an unpacked Tomcat distribution (default: ${DEFAULT-VALUE})")
    Path tomcatHome;
    @Option(names = "--tomcat-lib", defaultValue = "${sys:rubbos.tomcat.lib:-target/tomcat-lib}",
            description = "jars for Tomcat's lib/: the connector and the MariaDB driver (default: ${DEFAULT-VALUE})")
    Path tomcatLib;
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
    @Option(names = "--warmup", defaultValue = "-1",
            description = "seconds of unrecorded load per connector, for the JIT (default: 20, or 240 with "
                    + "--tomcat-cpu-share: under the quota the JIT compiler gets that share of a CPU too, and stock NIO "
                    + "measured 44 %% below its warmed throughput after 40 s)")
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
    @Option(names = "--pool-max", defaultValue = "100",
            description = "the JDBC pool's maxTotal per Tomcat (the WAR's context.xml) (default: ${DEFAULT-VALUE})")
    int poolMax;
    @Option(names = "--hybrid-attr", description = "an attribute of the hybrid Connector, name=value (repeatable), "
            + "e.g. threads=200")
    Map<String, String> hybridAttributes = new LinkedHashMap<>();
    @Option(names = "--stock-attr", description = "an attribute of the stock NIO Connector, name=value (repeatable)")
    Map<String, String> stockAttributes = new LinkedHashMap<>();
    @Option(names = "--tomcat-heap", defaultValue = "1g", description = "Tomcat's -Xms/-Xmx (default: ${DEFAULT-VALUE})")
    String heap;
    @Option(names = "--no-images", description = "do not fetch the logo with every page")
    boolean noImages;
    @Option(names = "--dumps", defaultValue = "10", description = "thread dumps per point with --diagnose, 250 ms "
            + "apart from the middle of the measured phase (default: ${DEFAULT-VALUE})")
    int dumps;
    @Option(names = "--diagnose", description = "JMX on Tomcat; per point a thread dump and the connector's, the "
            + "pool's and the thread pool's MBeans (files in <out>/diag)")
    boolean diagnose;
    @Option(names = "--if-missing", defaultValue = "fail", description = "fail (print how to install httpd or "
            + "MariaDB) or embedded (run the 2-tier quick mode with H2 instead) (default: ${DEFAULT-VALUE})")
    WhenMissing ifMissing;
    @Option(names = "--work", defaultValue = "target/rubbos-3tier-work",
            description = "where the CATALINA_BASEs and httpd's configuration go (default: ${DEFAULT-VALUE})")
    Path work;
    @Option(names = "--out", description = "output directory (default: target/rubbos-results/3tier-<date-time>)")
    Path out;

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
        return warmup >= 0 ? warmup : tomcatCpuShare > 0 ? 240 : 20;
    }

    @Override
    public Integer call() throws Exception {
        warmup = warmupSeconds();
        if (out == null) {
            out = Path.of("target", "rubbos-results", "3tier-" + LocalDateTime.now().format(
                    DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        Optional<String> missing = missing();
        if (missing.isPresent()) {
            System.out.println(missing.get());
            if (ifMissing == WhenMissing.EMBEDDED) {
                System.out.println("\n--if-missing=embedded: running the 2-tier quick mode (embedded Tomcat + H2).");
                return new CommandLine(new Fig3Run()).execute(fallbackArgs());
            }
            return 2;
        }
        MariaDb.ensureRunning();
        Files.createDirectories(out);
        Report.clearPointFiles(out).forEach(f -> System.out.println("Deleted " + f + " (left by an earlier sweep)"));
        JdbcSettings jdbc = JdbcSettings.mariadb();
        DataSpec spec = DataSpec.ofScale(scale);
        if (frontCpus.equals("none")) {
            frontCpus = null;
        } else {
            pin(ProcessHandle.current().pid(), frontCpus);
        }
        fitPoolsToDatabase(jdbc);
        if (load != DataLoad.NEVER) {
            // Before the first Tomcat starts: its readiness check reads the home page, which needs the tables.
            System.out.println("MariaDB: " + MariaDb.loadIfStale(jdbc, spec, false));
        }
        Mix workload = Mix.of(mix);
        String setup = setup(jdbc, spec, workload);
        System.out.println(setup);
        Files.createDirectories(work);
        List<SweepPoint> points = new ArrayList<>();
        long started = System.nanoTime();
        for (String name : connectors) {
            ConnectorChoice connector = ConnectorChoice.of(name);
            System.out.println("\n== " + connector.label() + " (" + connector.protocol + "), " + copies
                    + " Tomcat(s) behind httpd");
            List<TomcatInstance> tomcats = new ArrayList<>();
            List<Integer> jmxPorts = new ArrayList<>();
            List<CpuQuota> quotas = new ArrayList<>();
            Httpd[] front = new Httpd[1];
            // Ctrl-C or kill must not leave Tomcat and httpd running on the benchmark's ports and cores.
            Thread cleanUp = new Thread(() -> stopAll(front[0], tomcats), "stop-tiers");
            Runtime.getRuntime().addShutdownHook(cleanUp);
            Httpd httpd = null;
            try {
                for (int i = 0; i < copies; i++) {
                    int jmx = diagnose ? Diagnostics.freePort() : 0;
                    jmxPorts.add(jmx);
                    TomcatInstance t = TomcatInstance.start(tomcatSpec(connector, i, jmx), Duration.ofSeconds(120));
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
                        Diagnostics.freePort(), tomcats.stream().map(TomcatInstance::port).toList(), httpdProcesses,
                        httpdThreads, frontCpus));
                Files.copy(work.resolve("httpd-" + connector.label() + "/httpd.conf"),
                        out.resolve("httpd-" + connector.label() + ".conf"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.writeString(out.resolve("server-" + connector.label() + ".xml"), tomcats.get(0).serverXml());
                int port = httpd.port();
                System.out.println("  httpd: pids " + httpd.pids() + ", port " + port + ", CPUs "
                        + Optional.ofNullable(frontCpus).orElse("any"));
                sweep(connector, tomcats, jmxPorts, httpd, port, jdbc, spec, workload, points);
            } finally {
                quotas.forEach(q -> System.out.println("  CPU cap: " + q.throttling()));
                stopAll(httpd, tomcats);
                quotas.forEach(CpuQuota::close);
                Runtime.getRuntime().removeShutdownHook(cleanUp);
            }
        }
        Path report = Report.write(points, setup, workload, out, "# RUBBoS Fig 3, 3-tier: httpd -> Tomcat -> "
                + "MariaDB, stock NIO vs the hybrid connector");
        System.out.println("\n" + Report.table(points));
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
            if ((long) poolMax * copies > max - 10) {
                System.out.printf(Locale.ROOT, "MariaDB allows %d connections; %d copies x pool %d would not fit, so "
                        + "each copy's pool gets maxTotal %d (raise max_connections in MariaDB's configuration to keep "
                        + "%d).%n", max, copies, poolMax, fit, poolMax);
                poolMax = fit;
            }
        } catch (SQLException e) {
            System.out.println("Could not read MariaDB's max_connections: " + e.getMessage());
        }
    }

    private void sweep(ConnectorChoice connector, List<TomcatInstance> tomcats, List<Integer> jmxPorts, Httpd httpd,
                       int port, JdbcSettings jdbc, DataSpec spec, Mix workload, List<SweepPoint> points)
            throws Exception {
        ClientConfig base = new ClientConfig("127.0.0.1", port, "/rubbos", 1, workload, thinkMillis,
                Duration.ofSeconds(up), Duration.ofSeconds(run), Duration.ofSeconds(down), 0.10, spec.users(),
                spec.authors(), 1000, !noImages, 7, 10);
        if (warmup > 0) {
            System.out.println("  warm-up: " + warmup + " s, 32 users without think time (not recorded)");
            new ClientEmulator(new ClientConfig("127.0.0.1", port, "/rubbos", 32, workload, 0, Duration.ZERO,
                    Duration.ofSeconds(warmup), Duration.ZERO, 0.10, spec.users(), spec.authors(), 1000, !noImages,
                    99, 0), System.out).run();
        }
        List<Long> tomcatPids = tomcats.stream().map(TomcatInstance::pid).toList();
        Optional<Long> db = MariaDb.pid();
        ProcessMeter self = new ProcessMeter(ProcessHandle.current().pid());
        for (int n : users) {
            if (load != DataLoad.NEVER) {
                // Every point starts from the data as generated, not from what the warm-up or the points before
                // wrote (stories without comments on top of the home page change the walk).
                System.out.println("  MariaDB: " + MariaDb.loadIfStale(jdbc, spec, load == DataLoad.ALWAYS));
            }
            ProcessMeter.Sample[][] s = new ProcessMeter.Sample[4][2];
            String name = connector.label() + "-" + n + "users";
            List<Diagnostics> diags = new ArrayList<>();
            if (diagnose) {
                for (int i = 0; i < tomcats.size(); i++) {
                    diags.add(new Diagnostics(tomcats.get(i).pid(), jmxPorts.get(i), out.resolve("diag")));
                }
            }
            // MariaDB's threads too: is the database short of CPU (run-queue waits) or idle?
            Diagnostics dbSched = diagnose && db.isPresent() ? new Diagnostics(db.get(), 0, out.resolve("diag")) : null;
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
                        String copy = name + (diags.size() > 1 ? "-copy" + i : "");
                        d.resetCounters();
                        d.startSched();
                        timer.schedule(() -> d.writeThreadDump(copy, dumps), run / 2, TimeUnit.SECONDS);
                    }
                } else if (phase == Phase.DOWN_RAMP || (phase == null && s[0][1] == null)) {
                    at = 1;
                    if (dbSched != null) {
                        System.out.println("  sched mariadb: " + dbSched.writeSched(name + "-mariadb"));
                    }
                    for (int i = 0; i < diags.size(); i++) {
                        String copy = name + (diags.size() > 1 ? "-copy" + i : "");
                        diags.get(i).writeMBeans(copy);
                        System.out.println("  sched " + copy + ": " + diags.get(i).writeSched(copy));
                    }
                } else {
                    return;
                }
                s[0][at] = ProcessMeter.sum(tomcatPids);
                s[1][at] = self.sample();
                s[2][at] = ProcessMeter.sum(httpd.pids());
                s[3][at] = db.map(pid -> ProcessMeter.sum(List.of(pid))).orElse(null);
            });
            timer.shutdown();
            timer.awaitTermination(60, TimeUnit.SECONDS);
            SweepPoint point = new SweepPoint(connector, n, result, ProcessMeter.between(s[0][0], s[0][1]),
                    ProcessMeter.between(s[1][0], s[1][1]), ProcessMeter.between(s[2][0], s[2][1]),
                    s[3][0] == null ? new ProcessMeter.Rates(-1, -1, -1) : ProcessMeter.between(s[3][0], s[3][1]));
            points.add(point);
            Report.writePoint(point, out);
            System.out.printf(Locale.ROOT, "  => %s %d users: %.1f interactions/s, %d errors, mean %.1f ms, p50 %.1f "
                    + "ms, p99 %.1f ms, Tomcat CPU %.0f%%, Tomcat ctx switches %.0f/s, httpd CPU %.0f%%, MariaDB CPU "
                    + "%.0f%%, client CPU %.0f%%; machine load average %s%n", connector.label(), n,
                    result.throughput(), result.errors(), result.meanMs(), result.p50Ms(), result.p99Ms(),
                    point.server().cpuPercent(), point.server().contextSwitchesPerSecond(), point.web().cpuPercent(),
                    point.database().cpuPercent(), point.client().cpuPercent(), loadAverage());
        }
    }

    private TomcatInstance.Spec tomcatSpec(ConnectorChoice connector, int copy, int jmxPort) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(tomcatLib)) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        List<String> jvm = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap,
                "-Drubbos.jdbc.maxTotal=" + poolMax));
        if (jmxPort > 0) {
            jvm.addAll(Diagnostics.jvmOptions(jmxPort));
        }
        return new TomcatInstance.Spec(tomcatHome.toAbsolutePath(),
                work.resolve("tomcat-" + connector.label() + "-" + copy).toAbsolutePath(), connector,
                connector == ConnectorChoice.HYBRID ? hybridAttributes : stockAttributes, Diagnostics.freePort(),
                war.toAbsolutePath(), jars, jvm, cpuOf(copy));
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
                    + "rubbos-app/runner -am package -DskipTests unpacks org.apache.tomcat:tomcat:10.1.59:tar.gz there).");
        }
        if (!Files.isDirectory(tomcatLib)) {
            problems.add("No " + tomcatLib + " (the connector and MariaDB driver jars): build the runner first.");
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("\n\n", problems));
    }

    private String[] fallbackArgs() {
        List<String> a = new ArrayList<>(List.of("--war", war.toString(), "--connectors", String.join(",", connectors),
                "--users", String.join(",", users.stream().map(String::valueOf).toList()), "--mix", mix,
                "--think-ms", Long.toString(thinkMillis), "--warmup", Long.toString(warmup), "--up", Long.toString(up),
                "--run", Long.toString(run), "--down", Long.toString(down), "--scale", Double.toString(scale),
                "--pool-max", Integer.toString(poolMax), "--out", out.toString()));
        hybridAttributes.forEach((k, v) -> a.addAll(List.of("--hybrid-attr", k + "=" + v)));
        stockAttributes.forEach((k, v) -> a.addAll(List.of("--stock-attr", k + "=" + v)));
        if (noImages) {
            a.add("--no-images");
        }
        if (diagnose) {
            a.add("--diagnose");
        }
        return a.toArray(String[]::new);
    }

    private static void stopAll(Httpd httpd, List<TomcatInstance> tomcats) {
        try {
            if (httpd != null) {
                httpd.close();
            }
            for (TomcatInstance t : tomcats) {
                t.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the kernel's 1, 5 and 15 minute load averages: how busy the rest of the machine was */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** Moves every thread of {@code pid} onto {@code cpus}. */
    private static void pin(long pid, String cpus) {
        try {
            new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException | InterruptedException e) {
            System.out.println("Could not pin pid " + pid + " to CPUs " + cpus + ": " + e);
        }
    }

    private static String affinity(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .filter(l -> l.startsWith("Cpus_allowed_list:")).map(l -> l.substring(18).strip())
                    .findFirst().orElse("?");
        } catch (IOException e) {
            return "?";
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
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse(cpu);
        } catch (IOException ignored) {
            // not Linux
        }
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
                tomcatHome.getFileName(), "catalina.sh run", copies, copies == 1 ? "y" : "ies", tomcatPins, heap, poolMax,
                firstLine(Httpd.BINARY.toString(), "-v").replace("Server version: ", ""), httpdProcesses,
                httpdThreads, copies == 1 ? "http" : "balancer (byrequests)",
                Optional.ofNullable(frontCpus).orElse("any"), Optional.ofNullable(frontCpus).orElse("any"),
                dbVersion, db.map(p -> "pid " + p).orElse("pid unknown"), db.map(ThreeTierRun::affinity).orElse("?"),
                scale, spec.users(), spec.liveStories(), spec.oldStories(), workload.label(), thinkMillis, !noImages,
                up, run, down, warmup, hybridAttributes.isEmpty() ? "defaults" : hybridAttributes,
                stockAttributes.isEmpty() ? "defaults" : stockAttributes);
    }
}
