package io.hybridconnector.rubbos.runner;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.rubbos.data.DataSpec;

import picocli.CommandLine.Option;

/**
 * The options of a Fig 3 sweep, declared once for both runners ({@link Fig3Run}, embedded; {@link ThreeTierRun},
 * 3-tier) as a picocli mixin: what to deploy, the connectors and their attributes, the workload, the phases of each
 * point, the diagnostics and where the report goes. Filled by picocli on the main thread, then read only.
 */
final class SweepOptions {

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
    @Option(names = "--warmup", defaultValue = "-1",
            description = "seconds of unrecorded load per connector, for the JIT (default: 20, or with the 3-tier "
                    + "runner's --tomcat-cpu-share 240: under the quota the JIT compiler gets that share of a CPU "
                    + "too, and stock NIO measured 44 %% below its warmed throughput after 40 s)")
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
    @Option(names = "--no-images", description = "do not fetch the logo with every page")
    boolean noImages;
    @Option(names = "--out", description = "output directory (default: target/rubbos-results/<date-time>, "
            + "3tier-<date-time> for the 3-tier runner)")
    Path out;
    @Option(names = "--hybrid-attr", description = "an attribute of the hybrid connector as in server.xml, "
            + "name=value (repeatable), e.g. threads=200")
    Map<String, String> hybridAttributes = new LinkedHashMap<>();
    @Option(names = "--stock-attr", description = "an attribute of the stock NIO connector, name=value "
            + "(repeatable), e.g. maxThreads=200")
    Map<String, String> stockAttributes = new LinkedHashMap<>();
    @Option(names = "--pool-max", defaultValue = "100",
            description = "the JDBC pool's maxTotal in the WAR's context.xml, per server (default: ${DEFAULT-VALUE})")
    int poolMax;
    @Option(names = "--dumps", defaultValue = "10", description = "thread dumps per point with --diagnose, 250 ms "
            + "apart from the middle of the measured phase (default: ${DEFAULT-VALUE})")
    int dumps;
    @Option(names = "--diagnose", description = "open a JMX port on the server; per point, zero the hybrid "
            + "connector's counters when the measured phase starts, take a thread dump in its middle and read the "
            + "connector's, the pool's and the thread pool's MBeans at its end (files in <out>/diag)")
    boolean diagnose;

    /** The connector attributes given for {@code connector}. */
    Map<String, String> attributes(ConnectorChoice connector) {
        return connector == ConnectorChoice.HYBRID ? hybridAttributes : stockAttributes;
    }

    /** These options as a command line again, for handing a sweep from one runner to the other. */
    List<String> toArgs() {
        List<String> a = new java.util.ArrayList<>(List.of("--war", war.toString(), "--connectors",
                String.join(",", connectors), "--users", String.join(",", users.stream().map(String::valueOf)
                        .toList()), "--mix", mix, "--think-ms", Long.toString(thinkMillis), "--warmup",
                Long.toString(warmup), "--up", Long.toString(up), "--run", Long.toString(run), "--down",
                Long.toString(down), "--scale", Double.toString(scale), "--pool-max", Integer.toString(poolMax),
                "--dumps", Integer.toString(dumps)));
        if (out != null) {
            a.addAll(List.of("--out", out.toString()));
        }
        hybridAttributes.forEach((k, v) -> a.addAll(List.of("--hybrid-attr", k + "=" + v)));
        stockAttributes.forEach((k, v) -> a.addAll(List.of("--stock-attr", k + "=" + v)));
        if (noImages) {
            a.add("--no-images");
        }
        if (diagnose) {
            a.add("--diagnose");
        }
        return a;
    }
}
