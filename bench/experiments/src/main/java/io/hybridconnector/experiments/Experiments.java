package io.hybridconnector.experiments;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import javax.management.ObjectName;

import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.LoadGenerator;
import io.hybridconnector.bench.harness.load.Probe;
import io.hybridconnector.bench.harness.measure.PerfSyscalls;
import io.hybridconnector.bench.harness.cpu.Machine;
import io.hybridconnector.bench.harness.cpu.Pinning;
import io.hybridconnector.bench.harness.tomcat.CatalinaBase;
import io.hybridconnector.bench.harness.measure.ProcStats;
import io.hybridconnector.bench.harness.measure.ServerProbe;

/**
 * The papers' experiments in one command: phases of server processes (loopback matrix, write-spin in network
 * namespaces, seeds/004's thread sweep, issue 14's fairness cell on one core and on two), interleaved rounds,
 * then CSV, a markdown report and PNG plots. Runs on the main thread, which is also the load generator's thread
 * (pinned to CPU 1); the netns phase runs in a child JVM of this class started inside the client namespace, which
 * writes its rows to a CSV the parent reads back.
 */
public final class Experiments {

    static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    static final int SERVER_CPU = 0;
    static final int CLIENT_CPU = 1;

    private final ExperimentsOptions o;
    private final ServerFleet.Layout layout;
    private final boolean perf;
    private final long started = System.nanoTime();
    private final Map<String, String> meta = new LinkedHashMap<>();
    private int windowsDone;
    private int windowsTotal;

    private Experiments(ExperimentsOptions o, ServerFleet.Layout layout, boolean perf) {
        this.o = o;
        this.layout = layout;
        this.perf = perf;
    }

    public static void main(String[] args) throws Exception {
        ExperimentsOptions o;
        try {
            o = ExperimentsOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\n" + ExperimentsOptions.HELP);
            System.exit(2);
            return;
        }
        if (o.help) {
            OUT.print(ExperimentsOptions.HELP);
            return;
        }
        if (o.reportFrom != null) {
            List<Row> rows = Row.readCsv(o.reportFrom);
            Report.write(rows, readMeta(o.reportFrom.resolveSibling("meta.txt")), o.results, OUT);
            return;
        }
        Path stage = o.stage.toAbsolutePath().normalize();
        Path home = stage.resolve("dist/apache-tomcat-10.1.59");
        Path jar = stage.resolve("artifacts/hybrid-connector.jar");
        Path war = stage.resolve("artifacts/samples.war");
        for (Path p : List.of(home.resolve("bin/catalina.sh"), jar, war)) {
            if (!Files.exists(p)) {
                System.err.println("missing " + p + ": run `mvn -B -q -pl bench/experiments -am package -DskipTests`");
                System.exit(2);
            }
        }
        Path work = o.target.toAbsolutePath().resolve("experiments-run");
        Files.createDirectories(work);
        Path classes = unpackClasses(war, work.resolve("samples-classes"));
        ServerFleet.Layout layout = new ServerFleet.Layout(home, jar, war, classes, work,
                Path.of(System.getProperty("java.home")), findVirtualThreadJdk(), o.jvmOptions, SERVER_CPU);
        Pinning pinning = Pinning.detect(true, SERVER_CPU, CLIENT_CPU);
        if (!pinning.enabled()) {
            OUT.println("WARNING: no taskset or fewer than 2 CPUs: server and load generator are not pinned");
        }
        pinning.pinThisProcessToClientCpu();
        boolean perf = !o.noPerf && PerfSyscalls.works();
        Experiments x = new Experiments(o, layout, perf);
        if (o.childRows != null) {
            x.runChild();
        } else {
            x.runAll();
        }
    }

    /** The parent: every phase, then the report. */
    private void runAll() throws Exception {
        Plan plan = Plan.of(o.profile);
        List<Plan.Phase> phases = plan.phases.stream().filter(p -> p.selectedBy(o.phases)).map(this::withOverrides)
                .toList();
        windowsTotal = phases.stream().mapToInt(p -> p.rounds() * p.cells().stream().mapToInt(c -> c.variants().size())
                .sum()).sum();
        String date = LocalDate.now().toString();
        Path results = o.results != null ? o.results.toAbsolutePath()
                : o.target.toAbsolutePath().resolve("experiments-results/" + date + "-" + o.profile);
        Files.createDirectories(results);
        describeMachine(plan, phases);
        OUT.printf("Experiments, profile %s: %d phases, %d measured windows, about %.0f min plus server start-ups."
                + " Results: %s%n", o.profile, phases.size(), windowsTotal, estimate(phases) / 60, results);
        List<Row> rows = new ArrayList<>();
        for (Plan.Phase phase : phases) {
            OUT.printf("%n== phase %s: %d cells x variants x %d rounds%n", phase.name(), phase.cells().size(),
                    phase.rounds());
            if (phase.netns()) {
                rows.addAll(runNetnsPhase(phase, results));
            } else {
                rows.addAll(runPhase(phase, "127.0.0.1", List.of()));
            }
            Row.writeCsv(results.resolve("results.csv"), rows); // after each phase: partial results survive
        }
        meta.put("total minutes", String.format("%.1f", (System.nanoTime() - started) / 60e9));
        writeMeta(results.resolve("meta.txt"), meta);
        Report.write(rows, meta, results, OUT);
    }

    private Plan.Phase withOverrides(Plan.Phase p) {
        return new Plan.Phase(p.name(), p.netns(), p.variants(), p.cells(), o.rounds > 0 ? o.rounds : p.rounds(),
                p.cellWarmup(), o.windowMillis > 0 ? Duration.ofMillis(o.windowMillis) : p.window(),
                p.warmupPerVariant(), p.perf(), p.serverCores());
    }

    private static double estimate(List<Plan.Phase> phases) {
        double s = 0;
        for (Plan.Phase p : phases) {
            int per = p.cells().stream().mapToInt(c -> c.variants().size()).sum();
            s += p.rounds() * per * (p.cellWarmup().toMillis() + p.window().toMillis() + 1200) / 1000.0;
            s += p.usedVariants().size() * (p.warmupPerVariant().toMillis() + 500) / 1000.0 + 25;
        }
        return s;
    }

    /** Creates the namespaces, runs the phase in a child JVM inside the client namespace, deletes them. */
    private List<Row> runNetnsPhase(Plan.Phase phase, Path results) throws Exception {
        if (!Netns.isRoot()) {
            OUT.println("  SKIPPED: the write-spin phase needs root (network namespaces, per-namespace sysctls);"
                    + " run the command as root to get issue 3's figures");
            meta.put("netns phase", "skipped: not root");
            return List.of();
        }
        Path rowsFile = results.resolve("netns-rows.csv");
        Files.deleteIfExists(rowsFile);
        try (Netns ns = Netns.create(OUT)) {
            meta.put("netns", "server netns " + ns.server + " " + Netns.SERVER_ADDRESS + " tcp_wmem \""
                    + Netns.SERVER_WMEM + "\"; client netns " + ns.client + " " + Netns.CLIENT_ADDRESS
                    + "; veth MTU 1500; client tcp_rmem per cell (\"rmem 4096\" = \"4096 4096 4096\", \"rmem default\" = \""
                    + Plan.RMEM_DEFAULT_VALUE + "\"); no delay emulated (no netem)");
            List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns.client, "taskset", "-c",
                    Integer.toString(CLIENT_CPU), Path.of(System.getProperty("java.home"), "bin/java").toString(),
                    "-Xms512m", "-Xmx512m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    Experiments.class.getName()));
            cmd.addAll(o.childArgs(rowsFile, ns.server));
            Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try (InputStream in = child.getInputStream()) {
                in.transferTo(OUT); // the child's progress lines
            }
            int rc = child.waitFor();
            if (rc != 0) {
                OUT.println("  the netns child exited with " + rc + "; keeping the rows it wrote");
            }
        }
        if (!Files.exists(rowsFile)) {
            return List.of();
        }
        List<Row> rows = Row.readCsv(rowsFile);
        Path childMeta = rowsFile.resolveSibling("netns-meta.txt");
        if (Files.exists(childMeta)) {
            readMeta(childMeta).forEach((k, v) -> meta.put(k.startsWith("netns") ? k : "netns " + k, v));
            Files.delete(childMeta);
        }
        Files.delete(rowsFile); // its rows are in results.csv from here on
        return rows;
    }

    /** The child, inside the client namespace: starts servers in the server namespace and runs the netns phase. */
    private void runChild() throws Exception {
        Plan plan = Plan.of(o.profile);
        Plan.Phase phase = withOverrides(plan.phases.stream().filter(Plan.Phase::netns).findFirst().orElseThrow());
        windowsTotal = phase.rounds() * phase.cells().stream().mapToInt(c -> c.variants().size()).sum();
        List<Row> rows = runPhase(phase, Netns.SERVER_ADDRESS, List.of("ip", "netns", "exec", o.serverNetns),
                o.childRows);
        Row.writeCsv(o.childRows, rows);
        writeMeta(o.childRows.resolveSibling("netns-meta.txt"), meta);
    }

    private List<Row> runPhase(Plan.Phase phase, String address, List<String> prefix) throws Exception {
        return runPhase(phase, address, prefix, null);
    }

    /** Starts the phase's servers, warms each variant up, runs the interleaved rounds. */
    private List<Row> runPhase(Plan.Phase phase, String address, List<String> prefix, Path partial) throws Exception {
        List<Variant> variants = phase.variants().stream().filter(v -> phase.usedVariants().contains(v.id())).toList();
        List<Row> rows = new ArrayList<>();
        try (ServerFleet fleet = new ServerFleet(layout, address, prefix, serverCpus(phase), OUT)) {
            fleet.start(variants, phase.name());
            recordServers(phase, fleet, variants);
            Map<Integer, JmxCounters> jmx = new HashMap<>();
            Map<String, ObjectName> beans = new HashMap<>();
            for (Variant v : variants) {
                ServerFleet.Endpoint e = fleet.endpoint(v.id());
                if (e.jmxPort() != 0) {
                    JmxCounters j = jmx.get(e.jmxPort());
                    if (j == null) {
                        j = new JmxCounters(address, e.jmxPort());
                        jmx.put(e.jmxPort(), j);
                    }
                    beans.put(v.id(), j.beanFor(e.port()));
                }
            }
            warmUp(phase, fleet, variants);
            String condition = null;
            for (int round = 1; round <= phase.rounds(); round++) {
                for (Plan.Cell cell : phase.cells()) {
                    if (phase.netns() && !cell.condition().equals(condition)) {
                        Netns.setClientRmem(Plan.rmemValue(cell.condition()));
                        condition = cell.condition();
                    }
                    List<String> order = rotate(cell.variants(), round - 1);
                    for (String id : order) {
                        ServerFleet.Endpoint e = fleet.endpoint(id);
                        JmxCounters j = e.jmxPort() == 0 ? null : jmx.get(e.jmxPort());
                        Row r = measure(phase, cell, e, round, j, beans.get(id));
                        rows.add(r);
                        windowsDone++;
                        progress(phase, round, r);
                    }
                }
                if (partial != null) {
                    Row.writeCsv(partial, rows);
                }
            }
            for (JmxCounters j : jmx.values()) {
                j.close();
            }
        }
        return rows;
    }

    /** {@code taskset -c} list of a phase's servers: the server CPU, or with two cores the load generator's too. */
    static String serverCpus(Plan.Phase phase) {
        return phase.serverCores() == 1 ? Integer.toString(SERVER_CPU) : SERVER_CPU + "," + CLIENT_CPU;
    }

    private void warmUp(Plan.Phase phase, ServerFleet fleet, List<Variant> variants) throws Exception {
        long t0 = System.nanoTime();
        for (Variant v : variants) {
            if (phase.cells().get(0).beside() != null) {
                warmUpFairness(phase, fleet.endpoint(v.id()));
                continue;
            }
            List<Plan.Cell> cells = phase.cells().stream().filter(c -> c.variants().contains(v.id())).toList();
            Map<String, Plan.Cell> distinct = new LinkedHashMap<>();
            for (Plan.Cell c : cells) {
                distinct.putIfAbsent(c.workload().label() + c.condition(), c);
            }
            List<Plan.Cell> some = new ArrayList<>(distinct.values()).subList(0, Math.min(3, distinct.size()));
            Duration each = Duration.ofMillis(phase.warmupPerVariant().toMillis() / Math.max(1, some.size()));
            ServerFleet.Endpoint e = fleet.endpoint(v.id());
            for (Plan.Cell c : some) {
                if (phase.netns()) {
                    Netns.setClientRmem(Plan.rmemValue(c.condition()));
                }
                CellSpec spec = new CellSpec(new InetSocketAddress(e.address(), e.port()), c.workload().path(),
                        Math.min(100, c.concurrency()), Duration.ZERO, each, Duration.ofSeconds(10),
                        c.workload().expectedBytes(), c.think());
                LoadGenerator.run(spec);
            }
        }
        OUT.printf("  JIT warm-up: %d variants, %.0f s%n", variants.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** Each heavy load beside the light one, unmeasured: the compute, sleep and 10 MB servlets' JIT. */
    private static void warmUpFairness(Plan.Phase phase, ServerFleet.Endpoint e) throws Exception {
        List<Fairness.Scenario> heavy = phase.cells().stream().map(Plan.Cell::beside)
                .filter(s -> s.connections() > 0).distinct().toList();
        Fairness warm = new Fairness(Duration.ZERO, Duration.ofMillis(phase.warmupPerVariant().toMillis()
                / Math.max(1, heavy.size())), Duration.ofSeconds(10));
        for (Fairness.Scenario s : heavy) {
            warm.run(new InetSocketAddress(e.address(), e.port()), s, e.variant().id(), 0, Probe.NONE);
        }
    }

    private Row measure(Plan.Phase phase, Plan.Cell cell, ServerFleet.Endpoint e, int round, JmxCounters jmx,
            ObjectName bean) throws Exception {
        if (cell.beside() != null) {
            return measureFairness(phase, cell, e, round, jmx, bean);
        }
        CellSpec spec = new CellSpec(new InetSocketAddress(e.address(), e.port()), cell.workload().path(),
                cell.concurrency(), phase.cellWarmup(), phase.window(), Duration.ofSeconds(10),
                cell.workload().expectedBytes(), cell.think());
        // perf -p sees only threads that exist when it attaches: a thread-per-connection server starts threads for
        // the cell's fresh connections, so perf attaches at the window's start for those (it costs a pause of ~0.1-1 s
        // on a busy machine); pools of the other variants exist after the JIT warm-up.
        // Ours in the write-spin phase too: a request that waits moves its loop to another thread, which may be new.
        boolean late = e.variant().attrs().contains("threadModel='sync'") || (phase.netns() && e.variant().isOurs());
        ServerProbe sp = new ServerProbe(new ProcStats(e.pid()), e.pid(), perf && phase.perf(),
                layout.work().resolve("perf"), SERVER_CPU, late);
        WindowProbe wp = new WindowProbe(sp, e.pid(), jmx, bean);
        CellResult res = LoadGenerator.run(spec, wp);
        ServerProbe.Delta d = sp.finish();
        return Metrics.row(phase.name(), cell, e.variant(), round, res, d, wp);
    }

    /**
     * The light load with the probe (/proc, our MBean) on this thread, the heavy one on a second; no perf. Both load
     * threads share the client CPU, as the main job's two generators do.
     */
    private Row measureFairness(Plan.Phase phase, Plan.Cell cell, ServerFleet.Endpoint e, int round, JmxCounters jmx,
            ObjectName bean) throws Exception {
        ServerProbe sp = new ServerProbe(new ProcStats(e.pid()), e.pid(), false, layout.work().resolve("perf"),
                SERVER_CPU, false);
        WindowProbe wp = new WindowProbe(sp, e.pid(), jmx, bean);
        Fairness f = new Fairness(phase.cellWarmup(), phase.window(), Duration.ofSeconds(10));
        Fairness.Result res = f.run(new InetSocketAddress(e.address(), e.port()), cell.beside(), e.variant().id(),
                round, wp);
        return Metrics.fairnessRow(phase.name(), cell, e.variant(), round, res, sp.finish(), wp);
    }

    private void progress(Plan.Phase phase, int round, Row r) {
        double elapsed = (System.nanoTime() - started) / 1e9;
        double eta = windowsDone == 0 ? 0 : elapsed / windowsDone * (windowsTotal - windowsDone);
        if (r.s("experiment").equals("fairness")) {
            OUT.printf("[%3d/%d %5.0fs, ~%3.0f s left] %-15s r%d %-34s %-6s light %8.0f req/s p50 %6.2f p99 %7.2f"
                    + " max %7.2f ms, heavy %7s req/s, hand-offs %s, err=%s/%s cpu0 busy %.0f%%%n", windowsDone,
                    windowsTotal, elapsed, eta, phase.name(), round, r.s("workload"), r.s("variant"), r.d("rps"),
                    r.d("p50_ms"), r.d("p99_ms"), r.d("max_ms"), Agg.num(r.d("heavy_rps")),
                    r.s("mbean_HandOffs").isEmpty() ? "-" : r.s("mbean_HandOffs"), r.s("errors"),
                    r.s("heavy_errors").isEmpty() ? "-" : r.s("heavy_errors"), 100 * r.d("server_cpu_busy"));
            return;
        }
        OUT.printf("[%3d/%d %5.0fs, ~%3.0f s left] %-8s r%d %-10s %-18s c=%-4d %-12s %9.0f req/s %7.1f us/req"
                + " %5.2f cs/req %6.2f wr/req %5.2f EAGAIN/req %5.2f futex/req err=%s cpu0 busy %.0f%%%n",
                windowsDone, windowsTotal, elapsed, eta, phase.name(), round, r.s("experiment"),
                r.s("workload") + (r.s("condition").startsWith("rmem") ? " " + r.s("condition") : ""),
                (int) r.d("concurrency"), r.s("variant"), r.d("rps"), r.d("cpu_us_per_req"), r.d("cs_per_req"),
                r.d("write_per_req"), r.d("eagain_per_req"), r.d("futex_per_req"), r.s("errors"),
                100 * r.d("server_cpu_busy"));
    }

    private void recordServers(Plan.Phase phase, ServerFleet fleet, List<Variant> variants) {
        Map<Long, String> seen = new LinkedHashMap<>();
        for (Variant v : variants) {
            ServerFleet.Endpoint e = fleet.endpoint(v.id());
            seen.computeIfAbsent(e.pid(), pid -> fleet.jvmInfo(pid, v.host() == Variant.Host.TOMCAT_VT
                    ? layout.vtJavaHome() : layout.javaHome()) + ", allowed CPUs " + ProcStats.cpusAllowed(pid));
        }
        int i = 0;
        for (Map.Entry<Long, String> en : seen.entrySet()) {
            meta.put(phase.name() + " server JVM " + (++i), "pid " + en.getKey() + ": " + en.getValue());
        }
        for (Variant v : variants) {
            meta.put("variant " + v.id(), v.paper() + (v.protocol() == null ? "" : "; `" + v.protocol() + "` "
                    + v.attrs().replace('\'', '"')));
        }
    }

    private void describeMachine(Plan plan, List<Plan.Phase> phases) {
        meta.put("date", Instant.now().toString());
        meta.put("profile", o.profile + " (" + phases.stream().map(p -> p.name() + ": " + p.rounds() + " rounds, "
                + p.window().toMillis() + " ms windows after " + p.cellWarmup().toMillis() + " ms on fresh connections")
                .toList() + ")");
        meta.put("machine", Machine.cpuModel().orElse("?") + ", " + Machine.onlineCpus() + " CPUs, kernel " + System.getProperty("os.version"));
        meta.put("load average at start", firstLine(Path.of("/proc/loadavg")));
        meta.put("harness JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        meta.put("server JDK", layout.javaHome().toString());
        meta.put("virtual-thread JDK", String.valueOf(layout.vtJavaHome()));
        meta.put("server JVM options", o.jvmOptions);
        String twoCores = phases.stream().filter(p -> p.serverCores() == 2).map(p -> "; the " + p.name()
                + " phase's servers `taskset -c " + serverCpus(p) + "` (both CPUs, the load generator's shared)")
                .findFirst().orElse("");
        meta.put("pinning", "servers `taskset -c " + SERVER_CPU + "`, load generator (this JVM, all threads) CPU "
                + CLIENT_CPU + twoCores);
        meta.put("syscalls", perf ? "perf stat tracepoints per window (socket writes = write+writev+sendto minus 8-byte"
                + " eventfd writes; EAGAIN = sys_exit_write/writev with ret == -11)" : "not counted (perf unavailable)");
        meta.put("MBean", "our HybridConnector MBean read over the Tomcat JVM's local JMX port (RMI, no auth) right"
                + " after perf is switched on and right after it is switched off; /proc is sampled tightly at the"
                + " load's window edges");
        meta.put("commit", git("rev-parse", "HEAD") + (git("status", "--porcelain", "--", "connector").isBlank()
                ? "" : " (connector/ has uncommitted changes)"));
        meta.put("command", "mvn -B -q -pl bench/experiments -am package -DskipTests -Dexperiments=" + o.profile
                + (o.extra.isEmpty() ? "" : " -Dexperiments.args=\"" + String.join(" ", o.extra) + "\""));
    }

    static String git(String... args) {
        try {
            List<String> cmd = new ArrayList<>(List.of("git"));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            return out;
        } catch (IOException | InterruptedException e) {
            return "?";
        }
    }

    static <T> List<T> rotate(List<T> list, int by) {
        List<T> r = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            r.add(list.get((i + by) % list.size()));
        }
        return r;
    }

    private static Path unpackClasses(Path war, Path dir) throws IOException {
        CatalinaBase.deleteTree(dir);
        Files.createDirectories(dir);
        try (ZipInputStream zin = new ZipInputStream(Files.newInputStream(war))) {
            ZipEntry en;
            while ((en = zin.getNextEntry()) != null) {
                String name = en.getName();
                if (!en.isDirectory() && name.startsWith("WEB-INF/classes/")) {
                    Path out = dir.resolve(name.substring("WEB-INF/classes/".length())).normalize();
                    if (!out.startsWith(dir)) {
                        throw new IOException("bad entry " + name);
                    }
                    Files.createDirectories(out.getParent());
                    Files.copy(zin, out, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return dir;
    }

    /** A JDK 21+ for Tomcat's useVirtualThreads (Temurin under /usr/lib/jvm here), or null. */
    static Path findVirtualThreadJdk() throws IOException {
        Path jvm = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvm)) {
            return null;
        }
        Path best = null;
        int bestVersion = 0;
        try (var dirs = Files.list(jvm)) {
            for (Path d : (Iterable<Path>) dirs.sorted()::iterator) {
                Path release = d.resolve("release");
                if (!Files.isRegularFile(release) || !Files.isExecutable(d.resolve("bin/java"))) {
                    continue;
                }
                for (String line : Files.readAllLines(release)) {
                    if (line.startsWith("JAVA_VERSION=")) {
                        String v = line.substring(line.indexOf('"') + 1).split("[.\"]")[0];
                        int major = Integer.parseInt(v);
                        if (major >= 21 && major > bestVersion) {
                            best = d;
                            bestVersion = major;
                        }
                    }
                }
            }
        }
        return best;
    }

    private static String firstLine(Path p) {
        try {
            return Files.readAllLines(p).get(0);
        } catch (IOException | IndexOutOfBoundsException e) {
            return "?";
        }
    }

    static void writeMeta(Path file, Map<String, String> meta) throws IOException {
        List<String> lines = new ArrayList<>();
        meta.forEach((k, v) -> lines.add(k + "\t" + v));
        Files.write(file, lines);
    }

    static Map<String, String> readMeta(Path file) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                int tab = line.indexOf('\t');
                if (tab > 0) {
                    m.put(line.substring(0, tab), line.substring(tab + 1));
                }
            }
        }
        return m;
    }
}
