package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.hybridconnector.rubbos.client.stats.ResultFiles;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.client.workload.State;

/**
 * The sweep's outputs: summary.csv (one line per point), one per-state CSV per point, report.md (setup, the
 * Fig 3 table, the mix check, per-state tables at the highest load) and the three PNG plots. Main thread.
 */
final class Report {

    /** The browse-only mix the original's tables produce (FACTS.md 3.8, percent of page requests). */
    private static final Map<State, Double> BROWSE_ONLY_MIX = new EnumMap<>(Map.ofEntries(
            Map.entry(State.StoriesOfTheDay, 22.1), Map.entry(State.ViewStory, 26.7),
            Map.entry(State.ViewComment, 27.9), Map.entry(State.Browse, 3.7), Map.entry(State.BrowseCategories, 1.7),
            Map.entry(State.BrowseStoriesInCategory, 3.5), Map.entry(State.OlderStories, 3.4),
            Map.entry(State.Search, 3.7), Map.entry(State.SearchInStories, 3.8),
            Map.entry(State.SearchInComments, 2.8), Map.entry(State.SearchInUsers, 0.7)));

    private Report() {
    }

    static void writePoint(SweepPoint p, Path dir) throws IOException {
        ResultFiles.writeCsv(p.result(), dir.resolve(p.connector().label() + "-" + p.users() + "users.csv"));
    }

    static Path write(List<SweepPoint> points, String setup, Mix mix, Path dir) throws IOException {
        return write(points, setup, mix, dir, "# RUBBoS Fig 3 sweep: stock NIO vs the hybrid connector");
    }

    static Path write(List<SweepPoint> points, String setup, Mix mix, Path dir, String title) throws IOException {
        StringBuilder csv = new StringBuilder("connector,users,throughput_per_s,errors,mean_ms,p50_ms,p90_ms,p99_ms,"
                + "max_ms,server_cpu_percent,server_ctx_switches_per_s,machine_ctx_switches_per_s,sessions,client_cpu_percent"
                + (threeTier(points) ? ",httpd_cpu_percent,httpd_ctx_switches_per_s,db_cpu_percent\n" : "\n"));
        for (SweepPoint p : points) {
            RunResult r = p.result();
            csv.append(String.format(Locale.ROOT, "%s,%d,%.2f,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f,%.0f,%.0f,%d,%.1f",
                    p.connector().label(), p.users(), r.throughput(), r.errors(), r.meanMs(), r.p50Ms(), r.p90Ms(),
                    r.p99Ms(), r.maxMs(), p.server().cpuPercent(), p.server().contextSwitchesPerSecond(),
                    p.server().machineContextSwitchesPerSecond(), r.sessions(), p.client().cpuPercent()));
            if (threeTier(points)) {
                csv.append(String.format(Locale.ROOT, ",%.1f,%.0f,%.1f", cpu(p.web()),
                        p.web() == null ? -1 : p.web().contextSwitchesPerSecond(), cpu(p.database())));
            }
            csv.append('\n');
        }
        Files.writeString(dir.resolve("summary.csv"), csv);

        StringBuilder md = new StringBuilder(title + "\n\n");
        md.append(setup).append("\n\n## Throughput and response time against users (measured phase)\n\n");
        md.append(table(points));
        md.append("\nPlots: `fig3-throughput.png`, `fig3-response-time.png`, `context-switches.png`; "
                + "raw numbers: `summary.csv`, per state: `<connector>-<users>users.csv`.\n");
        if (mix == Mix.BROWSE_ONLY) {
            md.append("\n## Interaction mix against the original's tables (FACTS.md 3.8)\n\n").append(mixCheck(points));
        }
        for (ConnectorChoice c : ConnectorChoice.values()) {
            points.stream().filter(p -> p.connector() == c).reduce((a, b) -> b).ifPresent(last ->
                    md.append("\n## Per interaction, ").append(c.label()).append(" at ").append(last.users())
                      .append(" users\n\n").append(ResultFiles.markdown(last.result())));
        }
        Path report = dir.resolve("report.md");
        Files.writeString(report, md);
        Plots.write(points, "RUBBoS throughput (Fig 3 left)", "Interactions / s",
                p -> p.result().throughput(), dir.resolve("fig3-throughput.png"));
        Plots.write(points, "RUBBoS response time, mean (Fig 3 right)", "Mean response time (ms)",
                p -> p.result().meanMs(), dir.resolve("fig3-response-time.png"));
        Plots.write(points, threeTier(points) ? "Tomcat context switches" : "Server process context switches",
                "Context switches / s",
                p -> p.server().contextSwitchesPerSecond(), dir.resolve("context-switches.png"));
        return report;
    }

    static String table(List<SweepPoint> points) {
        boolean tiers = threeTier(points);
        String server = tiers ? "Tomcat" : "Server";
        StringBuilder md = new StringBuilder("| Connector | Users | Interactions/s | Errors | Mean ms | p50 ms | p99 ms "
                + "| " + server + " CPU % | " + server + " ctx sw/s | Machine ctx sw/s | Client CPU % |"
                + (tiers ? " httpd CPU % | MariaDB CPU % |\n" : "\n")
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + (tiers ? "---:|---:|\n" : "\n"));
        for (SweepPoint p : points) {
            RunResult r = p.result();
            md.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %d | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f |",
                    p.connector().label(), p.users(), r.throughput(), r.errors(), r.meanMs(), r.p50Ms(), r.p99Ms(),
                    p.server().cpuPercent(), p.server().contextSwitchesPerSecond(),
                    p.server().machineContextSwitchesPerSecond(), p.client().cpuPercent()));
            if (tiers) {
                md.append(String.format(Locale.ROOT, " %.0f | %.0f |", cpu(p.web()), cpu(p.database())));
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static boolean threeTier(List<SweepPoint> points) {
        return points.stream().anyMatch(p -> p.web() != null);
    }

    private static double cpu(ProcessMeter.Rates r) {
        return r == null ? -1 : r.cpuPercent();
    }

    private static String mixCheck(List<SweepPoint> points) {
        long[] counts = new long[State.values().length];
        long total = 0;
        for (SweepPoint p : points) {
            for (RunResult.Row row : p.result().rows()) {
                if (row.state().isInteraction()) {
                    counts[row.state().ordinal()] += row.count() + row.errors();
                    total += row.count() + row.errors();
                }
            }
        }
        StringBuilder md = new StringBuilder("All points of the sweep together, " + total + " interactions.\n\n"
                + "| Interaction | Expected % | Measured % | Difference |\n|---|---:|---:|---:|\n");
        for (Map.Entry<State, Double> e : BROWSE_ONLY_MIX.entrySet()) {
            double measured = total == 0 ? 0 : 100.0 * counts[e.getKey().ordinal()] / total;
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %+.1f |%n", e.getKey(), e.getValue(), measured,
                    measured - e.getValue()));
        }
        return md.toString();
    }
}
