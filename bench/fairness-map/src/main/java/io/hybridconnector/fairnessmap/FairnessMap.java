package io.hybridconnector.fairnessmap;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.hybridconnector.bench.harness.cpu.Machine;
import io.hybridconnector.bench.harness.cpu.Pinning;
import io.hybridconnector.bench.harness.cpu.Taskset;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.measure.ProcStats;
import io.hybridconnector.bench.harness.tomcat.ServiceUser;
import io.hybridconnector.bench.harness.tomcat.SideBySideTomcat;

/**
 * Issue 38's fairness map: light requests beside heavy ones of six kinds, over heavy durations and connection counts,
 * on one core and on two, stock NIO and ours on one real Tomcat distribution in the same interleaved rounds; a
 * markdown table judged against the bounds, heat maps of the three ratios and CSV. One Tomcat per core count
 * (its JVM sizes itself by the CPUs it may use), run as an unprivileged user. Runs on the main thread, which is also
 * the light load's client thread.
 */
public final class FairnessMap {

    static final String STOCK = "nio";
    static final String OURS = "ours";

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private FairnessMap() {
    }

    public static void main(String[] args) throws Exception {
        MapOptions o;
        try {
            o = MapOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (o.help) {
            OUT.print(MapOptions.HELP);
            return;
        }
        if (o.replot != null) {
            replot(o.replot.toAbsolutePath());
            return;
        }
        List<Cell> cells = o.cells();
        OUT.printf("Fairness map, %s profile: %d cells x %d rounds x 2 connectors, about %d min%n",
                o.profile.name().toLowerCase(), cells.size(), o.rounds(), (o.estimate().toSeconds() + 59) / 60);
        if (o.dryRun) {
            cells.forEach(c -> OUT.println("  " + c.label() + "  " + o.windows(c)));
            return;
        }
        new FairnessMap().run(o, cells);
    }

    private final List<String> log = new ArrayList<>();

    private void run(MapOptions o, List<Cell> cells) throws IOException, InterruptedException {
        long started = System.nanoTime();
        Path target = o.target.toAbsolutePath();
        Path stage = (o.stage != null ? o.stage : o.target).toAbsolutePath().normalize();
        Path home = stage.resolve("dist/apache-tomcat-" + o.tomcatVersion);
        Path jar = (o.connectorJar != null ? o.connectorJar : stage.resolve("artifacts/hybrid-connector.jar"))
                .toAbsolutePath();
        Path war = (o.samplesWar != null ? o.samplesWar : stage.resolve("artifacts/samples.war")).toAbsolutePath();
        String missing = missing(o, List.of(home.resolve("bin/catalina.sh"), jar, war));
        if (missing != null) {
            System.err.println(missing);
            System.exit(2);
        }
        String user = ServiceUser.ensure(o.user);
        Path results = (o.results != null ? o.results : target.resolve("fairness-map")).toAbsolutePath();
        Files.createDirectories(results);

        StringBuilder header = header(o, home, jar, war, user, stage);
        List<Window> windows = new ArrayList<>();
        for (int cores : o.cores) {
            SideBySideTomcat.Config config = new SideBySideTomcat.Config(home, jar, war,
                    target.resolve("run/base-" + o.tomcatVersion + "-" + cores + "core"), o.javaHome,
                    List.of(o.jvmOptions.trim().split("\\s+")), o.nioAttributes, o.ourAttributes,
                    Pinning.detect(cores == 1, 0, 1)).runningAs(user);
            windows.addAll(runOn(cores, config, o, cells.stream().filter(c -> c.cores() == cores).toList(), header));
        }

        List<CellSummary> summaries = CellSummary.of(windows);
        String table = MapTable.render(summaries, o.cores, FairnessMap::coresText);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        header.append("| took | ").append(took.toMinutes()).append(" min ").append(took.toSecondsPart())
                .append(" s (estimated ").append(o.estimate().toMinutes()).append(" min) |\n");
        write(results, header + "\n" + table, summaries, windows);
        Files.write(results.resolve("run.txt"), log);
        OUT.println();
        OUT.print(table);
        OUT.printf("%nTotal %d min %d s. Wrote %s%n", took.toMinutes(), took.toSecondsPart(), results);
    }

    /** What the run cannot do without, said as what to do about it; null when nothing is missing. */
    private static String missing(MapOptions o, List<Path> files) {
        for (Path p : files) {
            if (!Files.exists(p)) {
                return "missing " + p + ": run `mvn -B -q -pl bench/fairness-map -am package -DskipTests` first";
            }
        }
        if (o.cores.contains(1) && !Pinning.detect(true, 0, 1).enabled()) {
            return "--cores 1 needs taskset and at least 2 CPUs (Tomcat on CPU 0, the load on CPU 1)";
        }
        return null;
    }

    /**
     * One core count's cells on a Tomcat of their own: the load generators pinned to CPU 1 with Tomcat on CPU 0, or
     * both free on every CPU; the JIT warm-up, then the rounds. Adds the Tomcat JVM's row to {@code header}.
     */
    private List<Window> runOn(int cores, SideBySideTomcat.Config config, MapOptions o, List<Cell> cells,
            StringBuilder header) throws IOException, InterruptedException {
        Pinning pinning = config.pinning();
        if (pinning.enabled()) {
            pinning.pinThisProcessToClientCpu();
        } else if (Taskset.find().isPresent()) {
            Taskset.pinAllThreads(ProcessHandle.current().pid(), "0-" + (Machine.onlineCpus() - 1));
        }
        try (SideBySideTomcat tomcat = new SideBySideTomcat(config)) {
            say("Starting Apache Tomcat " + o.tomcatVersion + " for " + coresText(cores) + " as "
                    + (config.runAs() != null ? config.runAs() : "this process's user") + " ...");
            tomcat.start(CellSpec.sizePath("0.1"), Duration.ofSeconds(90));
            String row = tomcatRow(cores, tomcat, pinning);
            header.append(row);
            say(row.strip());
            MapRunner runner = new MapRunner(List.of(
                    new MapRunner.Connector(STOCK, "stock NIO", tomcat.stockPort()),
                    new MapRunner.Connector(OURS, "ours (hybrid)", tomcat.ourPort())),
                    tomcat.pid(), pinning.serverCpu(), o, this::say);
            runner.warmUp(cells);
            return runner.run(cells);
        }
    }

    /** How the server ran for a core count, as the tables' titles say it. */
    static String coresText(int cores) {
        return cores == 1 ? "1 core (Tomcat `taskset -c 0`, the load generators `taskset -c 1`)"
                : Machine.onlineCpus() + " cores, nothing pinned (Tomcat and the load generators share them)";
    }

    /** The tables, cells.csv and heat maps of an earlier run again, from its windows.csv; map.md keeps its header. */
    private static void replot(Path dir) throws IOException {
        List<Window> windows = MapCsv.readWindows(Files.readAllLines(dir.resolve("windows.csv")));
        List<CellSummary> summaries = CellSummary.of(windows);
        List<Integer> cores = windows.stream().map(w -> w.cell().cores()).distinct().sorted().toList();
        String table = MapTable.render(summaries, cores, FairnessMap::coresText);
        Path md = dir.resolve("map.md");
        String old = Files.exists(md) ? Files.readString(md) : "";
        int at = old.indexOf("### Server on");
        write(dir, (at < 0 ? "" : old.substring(0, at)) + table, summaries, windows);
        OUT.print(table);
        OUT.println("Wrote " + dir);
    }

    private StringBuilder header(MapOptions o, Path home, Path jar, Path war, String user, Path stage) {
        Path repo = stage.resolve("../../..").normalize();
        StringBuilder h = new StringBuilder();
        h.append("## Fairness map (issue 38), ").append(o.profile.name().toLowerCase()).append(" profile\n\n")
                .append("| item | value |\n|---|---|\n")
                .append("| date | ").append(Instant.now()).append(" |\n")
                .append("| code | ").append(git(repo)).append(" |\n")
                .append("| machine | ").append(Machine.cpuModel().orElse(System.getProperty("os.arch"))).append(", ")
                .append(Machine.onlineCpus()).append(" CPUs, kernel ").append(System.getProperty("os.version"))
                .append("; load average at the start ").append(Machine.loadAverage()).append(" |\n")
                .append("| Tomcat | ").append(home.getFileName()).append(" (real distribution), stock `")
                .append(SideBySideTomcat.STOCK_PROTOCOL).append("` and ours `").append(SideBySideTomcat.OUR_PROTOCOL)
                .append("` on two ports of one server; samples WAR ").append(war).append(", our jar ").append(jar)
                .append(" |\n")
                .append("| Tomcat user | ").append(user != null ? user + ": this benchmark ran as root and started "
                        + "`catalina.sh run` through `runuser -u " + user + " --` (CATALINA_BASE chowned to it)"
                        : "this benchmark's own user, not root").append("; the rows below give each JVM's uid |\n")
                .append("| Tomcat JVM options | `").append(o.jvmOptions).append("`; pinned to one CPU the JVM picks ")
                .append("SerialGC (ergonomics: one CPU is not a server-class machine), on two it picks G1 |\n")
                .append("| load generators | two client threads (light, heavy) of one JVM, each one NIO selector, closed ")
                .append("loop, keep-alive, zero think time; JDK ").append(System.getProperty("java.version"))
                .append(" |\n")
                .append("| rounds | ").append(o.rounds()).append(", each cell stock NIO then ours; JIT warm-up ")
                .append(o.jitWarmupSeconds()).append(" s per connector and core count first |\n")
                .append("| windows | ").append(windowsText(o)).append(" |\n");
        return h;
    }

    private static String windowsText(MapOptions o) {
        return o.profile == Profile.QUICK && o.window == null
                ? "0.5 s unmeasured on fresh connections, then 1.5 s measured (the quick profile)"
                : "per cell: unmeasured warm-up of at least two heavy request lengths, then a measured window long "
                        + "enough for " + Profile.HEAVY_PER_WINDOW + " heavy requests (windows.csv has each)";
    }

    /** One header row per core count: the Tomcat JVM's pid, user, allowed CPUs, GC, and our start line. */
    private static String tomcatRow(int cores, SideBySideTomcat tomcat, Pinning pinning)
            throws IOException, InterruptedException {
        String flags = tomcat.jcmd("VM.flags");
        Matcher gc = Pattern.compile("-XX:\\+Use(\\w+)GC\\b").matcher(flags);
        return "| server on " + cores + (cores == 1 ? " core" : " cores") + " | Tomcat JVM pid " + tomcat.pid()
                + " as " + ServiceUser.describe(tomcat.pid()) + ", allowed CPUs " + ProcStats.cpusAllowed(tomcat.pid())
                + ", GC " + (gc.find() ? gc.group(1) + "GC" : "?") + "; load generators' allowed CPUs "
                + ProcStats.cpusAllowed(ProcessHandle.current().pid()) + "; "
                + (pinning.enabled() ? pinning.describe() : "nothing pinned")
                + ourStartLine(tomcat.logs()) + " |\n";
    }

    private static String ourStartLine(String logs) {
        for (String line : logs.split("\n")) {
            int at = line.indexOf("HybridHttp11Protocol");
            if (at >= 0 && line.contains("threads=")) {
                return "; ours logged `" + line.substring(at).trim().replace("|", "/") + "`";
            }
        }
        return "";
    }

    /** The commit checked out, and whether the connector or the samples had changes not committed. */
    private static String git(Path repo) {
        try {
            String head = command(repo, "git", "rev-parse", "HEAD").strip();
            String dirty = command(repo, "git", "status", "--porcelain", "--", "connector", "servlet-samples",
                    "bench/harness").strip();
            return "working tree at " + head + (dirty.isEmpty() ? ", connector/, servlet-samples/ and bench/harness/ "
                    + "as committed" : ", with uncommitted changes in connector/, servlet-samples/ or bench/harness/ "
                    + "(the jar and WAR are what `package` built from the working tree, unless given)");
        } catch (IOException | InterruptedException e) {
            return "? (git: " + e.getMessage() + ")";
        }
    }

    private static String command(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": " + out.strip());
        }
        return out;
    }

    private static void write(Path dir, String markdown, List<CellSummary> summaries, List<Window> windows)
            throws IOException {
        Files.write(dir.resolve("windows.csv"), MapCsv.windows(windows));
        Files.write(dir.resolve("cells.csv"), MapCsv.cells(summaries));
        List<String> pngs = HeatMaps.write(dir, summaries);
        StringBuilder md = new StringBuilder(markdown).append("\nHeat maps: ");
        pngs.forEach(png -> md.append("[").append(png).append("](").append(png).append(") "));
        md.append("\n");
        Files.writeString(dir.resolve("map.md"), md);
    }

    private void say(String line) {
        OUT.println(line);
        log.add(line);
    }
}
