package io.hybridconnector.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.hybridconnector.bench.harness.cli.Args;
import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.tomcat.ServiceUser;
import io.hybridconnector.bench.report.Measurement;

/** The command line of {@link Compare}; parsed once on the main thread. */
final class CompareOptions {

    static final String HELP = """
            Options (pass them as -Dbench.args="..." to exec:exec@compare):
              --cells LIST          KBxCONCURRENCY cells, default 0.1x8,0.1x100,10x8,10x100,100x100,0.1x20close;
                                    a "close" suffix asks Connection: close (a new connection per request)
              --sizes LIST          response sizes in KB (0.1,10,100); with --concurrency: every combination
              --concurrency LIST    connections, e.g. 8,100,1000
              --duration S          measured seconds per window (default 5)
              --cell-warmup S       unmeasured seconds before each window, on its fresh connections (default 1)
              --warmup S            JIT warm-up per connector before round 1, split over the cells (default 12)
              --rounds N            interleaved rounds: each cell stock NIO then ours, N times (default 3)
              --tomcat VERSION      distribution unpacked by `package`: 10.1.59 (default), 11.0.25 or 9.0.104
                            (9.0 gets the samples built for javax.servlet)
              --java-home DIR       JDK that runs Tomcat (default: the one running this, i.e. Maven's)
              --jvm-opts "..."      Tomcat JVM options (default "-Xms1g -Xmx1g", as the baseline)
              --nio-attrs "..."     extra attributes on the stock connector, e.g. "maxThreads='200'"
              --ours-attrs "..."    extra attributes on ours, e.g. "threads='64'"
              --fairness LIST       fairness scenarios after the size cells: all (default), off, or names from
                                    "none,4 computing 20 ms,1 computing 200 ms,2 downloading 10 MB,4 sleeping 20 ms",
                                    or "N computing M ms" for any N and M
              --fairness-duration S measured seconds per fairness window (default 5)
              --results DIR         also write results.csv and results.md there (relative: to the working dir)
              --timeout S           a request unanswered this long is an error (default 10)
              --user NAME           run as root, Tomcat runs as this unprivileged user, made if missing (default
                                    hcbench), as production runs it; run as another user, Tomcat runs as that user
              --no-pin              do not use taskset
              --no-perf             do not count syscalls even if perf works
              --help
            """;

    Path target = Path.of("target");
    /** Where the harness staged the distributions and artifacts (dist/, artifacts/); null: {@code target}. */
    Path stage;
    List<Measurement.Cell> cells = new ArrayList<>();
    double durationSeconds = 5;
    double cellWarmupSeconds = 1;
    double warmupSeconds = 12;
    int rounds = 3;
    String tomcatVersion = "10.1.59";
    Path javaHome = Path.of(System.getProperty("java.home"));
    String jvmOptions = "-Xms1g -Xmx1g";
    String nioAttributes = "";
    String ourAttributes = "";
    Path results;
    List<Fairness.Scenario> fairness = Fairness.ALL;
    double fairnessSeconds = 5;
    double timeoutSeconds = 10;
    boolean pin = true;
    boolean perf = true;
    String user = ServiceUser.DEFAULT;
    boolean help;

    static CompareOptions parse(String[] args) {
        CompareOptions o = new CompareOptions();
        List<String> sizes = null;
        List<String> concurrency = null;
        Args a = new Args(args, HELP);
        while (a.hasNext()) {
            switch (a.next()) {
                case "--help", "-h", "help" -> o.help = true;
                case "--no-pin" -> o.pin = false;
                case "--user" -> o.user = a.value();
                case "--no-perf" -> o.perf = false;
                case "--target" -> o.target = Path.of(a.value());
                case "--stage" -> o.stage = Path.of(a.value());
                case "--cells" -> o.cells = parseCells(a.value());
                case "--sizes" -> sizes = List.of(a.value().split(","));
                case "--concurrency" -> concurrency = List.of(a.value().split(","));
                case "--duration" -> o.durationSeconds = a.positive();
                case "--cell-warmup" -> o.cellWarmupSeconds = Double.parseDouble(a.value());
                case "--warmup" -> o.warmupSeconds = Double.parseDouble(a.value());
                case "--rounds" -> o.rounds = (int) a.positive();
                case "--tomcat" -> o.tomcatVersion = a.value();
                case "--java-home" -> o.javaHome = Path.of(a.value());
                case "--jvm-opts" -> o.jvmOptions = a.value();
                case "--nio-attrs" -> o.nioAttributes = a.value().replace('\'', '"');
                case "--ours-attrs" -> o.ourAttributes = a.value().replace('\'', '"');
                case "--results" -> o.results = Path.of(a.value());
                case "--fairness" -> o.fairness = Fairness.parse(a.value());
                case "--fairness-duration" -> o.fairnessSeconds = a.positive();
                case "--timeout" -> o.timeoutSeconds = a.positive();
                default -> throw a.unknown();
            }
        }
        if (sizes != null || concurrency != null) {
            o.cells = new ArrayList<>();
            for (String kb : sizes != null ? sizes : List.of("0.1", "10", "100")) {
                for (String c : concurrency != null ? concurrency : List.of("8", "100")) {
                    o.cells.add(new Measurement.Cell(kb.trim(), Integer.parseInt(c.trim())));
                }
            }
        } else if (o.cells.isEmpty()) {
            o.cells = parseCells("0.1x8,0.1x100,10x8,10x100,100x100,0.1x20close");
        }
        return o;
    }

    static List<Measurement.Cell> parseCells(String list) {
        List<Measurement.Cell> cells = new ArrayList<>();
        for (String cell : list.split(",")) {
            String spec = cell.trim();
            boolean close = spec.endsWith("close");
            String[] p = (close ? spec.substring(0, spec.length() - "close".length()) : spec).split("[xX@]");
            if (p.length != 2) {
                throw new IllegalArgumentException("a cell is KBxCONCURRENCY[close], e.g. 0.1x8 or 0.1x20close; got "
                        + cell);
            }
            Double.parseDouble(p[0]);
            cells.add(new Measurement.Cell(p[0], Integer.parseInt(p[1]), close));
        }
        return cells;
    }
}
