package io.hybridconnector.fairnessmap;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.hybridconnector.bench.harness.cli.Args;
import io.hybridconnector.bench.harness.tomcat.ServiceUser;

/** The command line of {@link FairnessMap}; parsed once on the main thread. */
final class MapOptions {

    static final String HELP = """
            Options (pass them as -Dmap.args="..." to exec:exec@map):
              --profile quick|full  quick (default): a diagonal of the grid, under 10 minutes; full: every cell
              --cores LIST          core counts, default 1,2 (1: Tomcat on CPU 0, the load on CPU 1; 2: nothing pinned)
              --kinds LIST          heavy kinds, default cpu,wall,sleep,sometimes,download,upload
              --durations LIST      only the cells of these heavy durations in ms, e.g. 0.5,1 (default: the profile's)
              --connections LIST    only the cells of these heavy connection counts, e.g. 4,8,16 (default: the
                                    profile's)
              --rounds N            interleaved rounds: each cell stock NIO then ours, N times (profile: 3)
              --window S            measured seconds per window (profile: quick 1.5, full 5; full lengthens a window
                                    up to 20 s so that it sees 50 heavy requests)
              --cell-warmup S       unmeasured seconds on fresh connections before each window (profile: quick 0.5,
                                    full 1; at least two heavy request lengths)
              --jit-warmup S        JIT warm-up per connector and core count, split over the light load alone and
                                    each heavy kind (default: quick 6, full 21)
              --user NAME           run as root, Tomcat runs as this unprivileged user, made if missing (default
                                    hcbench); run as another user, Tomcat runs as that user
              --tomcat VERSION      distribution unpacked by `package`: 10.1.59 (default) or 11.0.25
              --java-home DIR       JDK that runs Tomcat (default: the one running this, i.e. Maven's)
              --jvm-opts "..."      Tomcat JVM options (default "-Xms1g -Xmx1g", as the main job)
              --nio-attrs "..."     extra attributes on the stock connector, e.g. "maxThreads='200'"
              --ours-attrs "..."    extra attributes on ours, e.g. "threads='64'"
              --connector-jar FILE  our connector jar (default: the one the harness staged)
              --samples-war FILE    the samples WAR (default: the one the harness staged)
              --results DIR         where map.md, cells.csv, windows.csv and the heat maps go (default
                                    target/fairness-map; relative: to the working directory)
              --dry-run             print the cells and the time they would take, run nothing
              --replot DIR          run nothing: read DIR/windows.csv of an earlier run and write its cells.csv,
                                    heat maps and map.md's tables again (map.md's header is kept)
              --help
            """;

    Path target = Path.of("target");
    /** Where the harness staged the distributions and artifacts (dist/, artifacts/); null: {@code target}. */
    Path stage;
    Profile profile = Profile.QUICK;
    List<Integer> cores = Grid.CORES;
    List<HeavyKind> kinds = List.of(HeavyKind.values());
    /** Only cells of these durations (kinds without one keep theirs); null: every one of the profile. */
    List<Double> durations;
    /** Only cells of these heavy connection counts; null: every one of the profile. */
    List<Integer> connections;
    Integer rounds;
    Duration window;
    Duration cellWarmup;
    Double jitWarmupSeconds;
    String user = ServiceUser.DEFAULT;
    String tomcatVersion = "10.1.59";
    Path javaHome = Path.of(System.getProperty("java.home"));
    String jvmOptions = "-Xms1g -Xmx1g";
    String nioAttributes = "";
    String ourAttributes = "";
    Path connectorJar;
    Path samplesWar;
    Path results;
    boolean dryRun;
    Path replot;
    boolean help;

    static MapOptions parse(String[] args) {
        MapOptions o = new MapOptions();
        Args a = new Args(args, HELP);
        while (a.hasNext()) {
            switch (a.next()) {
                case "--help", "-h", "help" -> o.help = true;
                case "--target" -> o.target = Path.of(a.value());
                case "--stage" -> o.stage = Path.of(a.value());
                case "--profile" -> o.profile = Profile.of(a.value());
                case "--cores" -> o.cores = cores(a.value());
                case "--kinds" -> o.kinds = kinds(a.value());
                case "--durations" -> o.durations = durations(a.value());
                case "--connections" -> o.connections = connections(a.value());
                case "--rounds" -> o.rounds = (int) a.positive();
                case "--window" -> o.window = seconds(a.positive());
                case "--cell-warmup" -> o.cellWarmup = seconds(a.positive());
                case "--jit-warmup" -> o.jitWarmupSeconds = a.positive();
                case "--user" -> o.user = a.value();
                case "--tomcat" -> o.tomcatVersion = a.value();
                case "--java-home" -> o.javaHome = Path.of(a.value());
                case "--jvm-opts" -> o.jvmOptions = a.value();
                case "--nio-attrs" -> o.nioAttributes = a.value().replace('\'', '"');
                case "--ours-attrs" -> o.ourAttributes = a.value().replace('\'', '"');
                case "--connector-jar" -> o.connectorJar = Path.of(a.value());
                case "--samples-war" -> o.samplesWar = Path.of(a.value());
                case "--results" -> o.results = Path.of(a.value());
                case "--dry-run" -> o.dryRun = true;
                case "--replot" -> o.replot = Path.of(a.value());
                default -> throw a.unknown();
            }
        }
        return o;
    }

    int rounds() {
        return rounds != null ? rounds : profile.rounds();
    }

    double jitWarmupSeconds() {
        return jitWarmupSeconds != null ? jitWarmupSeconds : profile == Profile.QUICK ? 6 : 21;
    }

    List<Cell> cells() {
        List<Cell> cells = new ArrayList<>();
        for (Cell c : profile.cells(cores, kinds)) {
            if ((durations == null || !c.kind().hasDuration() || durations.contains(c.ms()))
                    && (connections == null || connections.contains(c.connections()))) {
                cells.add(c);
            }
        }
        return cells;
    }

    Profile.Windows windows(Cell cell) {
        return profile.windows(cell, cellWarmup, window);
    }

    /**
     * About how long the run takes: every window with its warm-up and a little for connecting, draining and the quiet
     * wait, and per core count a Tomcat start, the JIT warm-up on both connectors and a stop.
     */
    Duration estimate() {
        double seconds = 0;
        for (Cell c : cells()) {
            Profile.Windows w = windows(c);
            seconds += rounds() * 2 * (w.warmup().toMillis() + w.window().toMillis() + WINDOW_OVERHEAD_MILLIS) / 1e3;
        }
        seconds += cores.size() * (TOMCAT_START_STOP_SECONDS + 2 * jitWarmupSeconds());
        return Duration.ofSeconds(Math.round(seconds));
    }

    /** Connecting, draining and the quiet wait around a window (measured on the quick profile). */
    static final long WINDOW_OVERHEAD_MILLIS = 350;
    static final double TOMCAT_START_STOP_SECONDS = 12;

    static List<Integer> cores(String list) {
        List<Integer> cores = new ArrayList<>();
        for (String s : list.split(",")) {
            int n = Integer.parseInt(s.trim());
            if (!Grid.CORES.contains(n)) {
                throw new IllegalArgumentException("--cores: 1 and 2 only, got " + n);
            }
            cores.add(n);
        }
        return cores;
    }

    static List<HeavyKind> kinds(String list) {
        List<HeavyKind> kinds = new ArrayList<>();
        for (String s : list.split(",")) {
            kinds.add(HeavyKind.byId(s.trim()));
        }
        return kinds;
    }

    static List<Double> durations(String list) {
        return gridValues("--durations", list, Double::parseDouble, Grid.DURATIONS_MS);
    }

    static List<Integer> connections(String list) {
        return gridValues("--connections", list, Integer::parseInt, Grid.CONNECTIONS);
    }

    /** @return the comma-separated values of {@code list}, each one of the grid's {@code allowed} */
    private static <T> List<T> gridValues(String option, String list, Function<String, T> parse, List<T> allowed) {
        List<T> values = new ArrayList<>();
        for (String s : list.split(",")) {
            T value = parse.apply(s.trim());
            if (!allowed.contains(value)) {
                throw new IllegalArgumentException(option + ": the grid's " + allowed + " only, got " + s.trim());
            }
            values.add(value);
        }
        return values;
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
