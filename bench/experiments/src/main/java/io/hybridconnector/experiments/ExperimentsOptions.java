package io.hybridconnector.experiments;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.hybridconnector.bench.harness.cli.Args;

/** The command line of {@link Experiments}; parsed once on the main thread. */
final class ExperimentsOptions {

    static final String HELP = """
            Experiments (seeds/000 Tables 2, 3, 5, 6, Figs 4, 6, 12, 14, 16, 17; seeds/004 Fig 5; issue 3's write-spin;
            issue 14's fairness cell)
              mvn -B -q -pl bench/experiments -am package -DskipTests -Dexperiments=quick|full \\
                  [-Dexperiments.args="OPTIONS"]
            Options:
              --phases LIST       some of loopback,netns,threads,fairness,fairness-2cores (default: all;
                                  "fairness" selects both fairness phases: server on 1 core, then on 2)
              --rounds N          interleaved rounds per phase (default: the profile's)
              --window-ms N       measured window per cell and variant (default: the profile's)
              --results DIR       where results.csv, report.md and the PNGs go
                                  (default target/experiments-results/<date>-<profile>)
              --jvm-opts "..."    server JVM options (default "-Xms1g -Xmx1g", as the baseline)
              --no-perf           do not count syscalls even if perf works
              --report-from CSV   only rebuild report.md and the PNGs from a results.csv (meta.txt beside it)
              --help
            The netns phase needs root; without it, it is skipped with a message.
            """;

    String profile = "quick";
    /** Where bench/harness staged the Tomcat distribution, our jar and the samples WAR (dist/, artifacts/). */
    Path stage = Path.of("../harness/target");
    Path target = Path.of("target");
    Path results;
    List<String> phases;
    int rounds;
    long windowMillis;
    String jvmOptions = "-Xms1g -Xmx1g";
    boolean noPerf;
    boolean help;
    Path reportFrom;
    /** Internal: this JVM is the netns child; write rows here. */
    Path childRows;
    String serverNetns;
    /** The user's options, echoed in the report's command line. */
    final List<String> extra = new ArrayList<>();

    static ExperimentsOptions parse(String[] args) {
        ExperimentsOptions o = new ExperimentsOptions();
        Args a = new Args(args, "");
        while (a.hasNext()) {
            boolean user = true;
            switch (a.next()) {
                case "--help", "-h", "help" -> o.help = true;
                case "--no-perf" -> o.noPerf = true;
                case "--profile" -> {
                    o.profile = a.value();
                    user = false;
                }
                case "--stage" -> {
                    o.stage = Path.of(a.value());
                    user = false;
                }
                case "--target" -> {
                    o.target = Path.of(a.value());
                    user = false;
                }
                case "--child-rows" -> {
                    o.childRows = Path.of(a.value());
                    user = false;
                }
                case "--server-netns" -> {
                    o.serverNetns = a.value();
                    user = false;
                }
                case "--results" -> o.results = Path.of(a.value());
                case "--report-from" -> o.reportFrom = Path.of(a.value());
                case "--phases" -> o.phases = List.of(a.value().split(","));
                case "--rounds" -> o.rounds = Integer.parseInt(a.value());
                case "--window-ms" -> o.windowMillis = Long.parseLong(a.value());
                case "--jvm-opts" -> o.jvmOptions = a.value().trim();
                default -> throw a.unknown();
            }
            if (user) {
                o.extra.addAll(a.current());
            }
        }
        if (o.reportFrom != null && o.results == null) {
            o.results = o.reportFrom.toAbsolutePath().getParent();
        }
        if (o.rounds < 0 || o.windowMillis < 0) {
            throw new IllegalArgumentException("--rounds and --window-ms must not be negative");
        }
        return o;
    }

    /** The options the netns child runs with. */
    List<String> childArgs(Path rows, String serverNs) {
        List<String> a = new ArrayList<>(List.of("--profile", profile, "--stage", stage.toAbsolutePath()
                .toString(), "--target", target.toAbsolutePath().toString(), "--child-rows", rows.toString(),
                "--server-netns", serverNs, "--jvm-opts", jvmOptions));
        if (rounds > 0) {
            a.addAll(List.of("--rounds", Integer.toString(rounds)));
        }
        if (windowMillis > 0) {
            a.addAll(List.of("--window-ms", Long.toString(windowMillis)));
        }
        if (noPerf) {
            a.add("--no-perf");
        }
        return a;
    }
}
