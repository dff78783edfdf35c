package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.hybridconnector.bench.harness.measure.ProcessUsage;
import io.hybridconnector.bench.harness.plot.Charts;
import io.hybridconnector.rubbos.client.stats.ResultFiles;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.workload.Mix;
import io.hybridconnector.rubbos.client.workload.State;

/**
 * The sweep's outputs: summary.csv (one line per point), one per-state CSV per point, report.md (setup, the
 * Fig 3 table, the mix check, per-state tables at the highest load) and the three PNG plots. Main thread.
 */
final class Fig3Report {

    /** The browse-only mix the original's tables produce (FACTS.md 3.8, percent of page requests). */
    private static final Map<State, Double> BROWSE_ONLY_MIX = new EnumMap<>(Map.ofEntries(
            Map.entry(State.StoriesOfTheDay, 22.1), Map.entry(State.ViewStory, 26.7),
            Map.entry(State.ViewComment, 27.9), Map.entry(State.Browse, 3.7), Map.entry(State.BrowseCategories, 1.7),
            Map.entry(State.BrowseStoriesInCategory, 3.5), Map.entry(State.OlderStories, 3.4),
            Map.entry(State.Search, 3.7), Map.entry(State.SearchInStories, 3.8),
            Map.entry(State.SearchInComments, 2.8), Map.entry(State.SearchInUsers, 0.7)));

    /**
     * The read/write mix the original's tables produce with 90% user and 10% author sessions (FACTS.md 3.8,
     * percent of page requests): the six writes and the five biggest reads, the interactions FACTS.md lists.
     */
    private static final Map<State, Double> READ_WRITE_MIX = new EnumMap<>(Map.ofEntries(
            Map.entry(State.StoreComment, 7.1), Map.entry(State.StoreStory, 2.6),
            Map.entry(State.RegisterUser, 1.3), Map.entry(State.StoreModerateLog, 0.6),
            Map.entry(State.AcceptStory, 0.4), Map.entry(State.RejectStory, 0.2),
            Map.entry(State.ViewStory, 17.4), Map.entry(State.StoriesOfTheDay, 17.2),
            Map.entry(State.ViewComment, 12.8), Map.entry(State.PostComment, 7.2), Map.entry(State.Browse, 5.6)));

    /** Percentage points the measured mix may differ from FACTS.md 3.8 by (issue 5). */
    static final double MIX_TOLERANCE = 2.0;

    /** A per-point CSV: {@code <connector>-<users>users.csv}. */
    private static final Pattern POINT_CSV = Pattern.compile("[a-z]+-\\d+users\\.csv");

    private Fig3Report() {
    }

    /**
     * Deletes the per-point CSVs a previous sweep left in {@code dir}, so that a directory reused with other
     * points (or another mix) holds only this sweep's: a stale {@code <connector>-<users>users.csv} looks like
     * one of ours and is pooled by anyone who reads them all. @return the files deleted
     */
    static List<Path> clearPointFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> stale;
        try (Stream<Path> files = Files.list(dir)) {
            stale = files.filter(f -> POINT_CSV.matcher(f.getFileName().toString()).matches()).sorted().toList();
        }
        for (Path f : stale) {
            Files.delete(f);
        }
        return stale;
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
        md.append("\n## Interaction mix against the original's tables (FACTS.md 3.8, ").append(mix.label())
          .append(")\n\n").append(mixCheck(points, mix));
        for (ConnectorChoice c : ConnectorChoice.values()) {
            points.stream().filter(p -> p.connector() == c).reduce((a, b) -> b).ifPresent(last ->
                    md.append("\n## Per interaction, ").append(c.label()).append(" at ").append(last.users())
                      .append(" users\n\n").append(ResultFiles.markdown(last.result())));
        }
        Path report = dir.resolve("report.md");
        Files.writeString(report, md);
        plot(points, "RUBBoS throughput (Fig 3 left)", "Interactions / s",
                p -> p.result().throughput(), dir.resolve("fig3-throughput.png"));
        plot(points, "RUBBoS response time, mean (Fig 3 right)", "Mean response time (ms)",
                p -> p.result().meanMs(), dir.resolve("fig3-response-time.png"));
        plot(points, threeTier(points) ? "Tomcat context switches" : "Server process context switches",
                "Context switches / s",
                p -> p.server().contextSwitchesPerSecond(), dir.resolve("context-switches.png"));
        return report;
    }

    /** Writes {@code file} (PNG) with one line per connector of {@code value} against the number of users. */
    private static void plot(List<SweepPoint> points, String title, String yLabel, ToDoubleFunction<SweepPoint> value,
                             Path file) throws IOException {
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (ConnectorChoice c : ConnectorChoice.values()) {
            List<SweepPoint> mine = points.stream().filter(p -> p.connector() == c).toList();
            if (!mine.isEmpty()) {
                series.put(c == ConnectorChoice.STOCK ? "stock NIO (Http11NioProtocol)" : "hybrid (HybridHttp11Protocol)",
                        new double[][] { mine.stream().mapToDouble(SweepPoint::users).toArray(),
                                mine.stream().mapToDouble(value).toArray() });
            }
        }
        Charts.sweep(file, title, "Emulated users", yLabel, series);
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

    private static double cpu(ProcessUsage.Rates r) {
        return r == null ? -1 : r.cpuPercent();
    }

    /** @return percent of page requests FACTS.md 3.8 gives for {@code mix}, by interaction */
    static Map<State, Double> expectedMix(Mix mix) {
        return mix == Mix.BROWSE_ONLY ? BROWSE_ONLY_MIX : READ_WRITE_MIX;
    }

    /**
     * The mix of all points together against FACTS.md 3.8, in percent of page requests (BACK and END rows do not
     * count; a Back the walk drew counts as a request of the page it re-requests), two ways:
     * <ul>
     * <li>as the original client counts: every request under the interaction the user's walk chose. The original's
     * emulator records each request's statistics under the state it drew, also when it had to request something
     * else instead - a Back, because the page offered no link to the chosen interaction (a story without comments has
     * no ViewComment link) or said "Sorry" (nothing matched). This is the mix RUBBoS reports, and the one FACTS.md's
     * derivation describes.</li>
     * <li>as served: the pages actually requested. The two differ by what the data did to the walk: in the
     * read/write mix stories published during the run have no comments yet.</li>
     * </ul>
     */
    static String mixCheck(List<SweepPoint> points, Mix mix) {
        MixCount all = MixCount.of(points);
        StringBuilder md = new StringBuilder("All points of the sweep together, " + all.measuredTotal
                + " page requests (Back re-requests counted as the page they request). " + all.noLinks
                + " transitions found no link to follow and " + all.sorryBacks + " followed a \"Sorry\" page; both went"
                + " back instead" + soughtLinks(points) + ". \"Counted\" is the mix as the original client counts"
                + " it (each request under the interaction the user chose, also when a Back replaced it); \"served\""
                + " is the pages actually requested.\n\n"
                + "| Interaction | Expected % | Counted % | Difference | Served % | Difference |\n"
                + "|---|---:|---:|---:|---:|---:|\n");
        List<String> countedOff = new ArrayList<>();
        List<String> servedOff = new ArrayList<>();
        for (Map.Entry<State, Double> e : expectedMix(mix).entrySet()) {
            double counted = all.chosenPercent(e.getKey());
            double served = all.measuredPercent(e.getKey());
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %+.1f | %.1f | %+.1f |%n", e.getKey(),
                    e.getValue(), counted, counted - e.getValue(), served, served - e.getValue()));
            if (Math.abs(counted - e.getValue()) > MIX_TOLERANCE) {
                countedOff.add(e.getKey().name());
            }
            if (Math.abs(served - e.getValue()) > MIX_TOLERANCE) {
                servedOff.add(e.getKey().name());
            }
        }
        md.append(verdict("Counted", countedOff)).append(verdict("Served", servedOff));
        return md.append(mixByPoint(points, mix)).toString();
    }

    private static String verdict(String what, List<String> off) {
        return off.isEmpty() ? what + ": every interaction within " + MIX_TOLERANCE + " points.\n"
                : what + ": more than " + MIX_TOLERANCE + " points off: " + String.join(", ", off) + ".\n";
    }

    /**
     * The mix of each point on its own, counted and served: the two interactions farthest from FACTS.md 3.8 and the
     * share of transitions a Back replaced. In the read/write mix a story the authors publish waits a few think times
     * for its first comment (a reader must view it, then post), while stories leave the home page at a rate
     * proportional to the number of users: the more users, the more of the home page has no comments yet, and the
     * served mix drifts from the counted one as the load grows.
     */
    static String mixByPoint(List<SweepPoint> points, Mix mix) {
        StringBuilder md = new StringBuilder("\nEach point on its own:\n\n"
                + "| Connector | Users | Requests | Counted: farthest from expected | Within " + MIX_TOLERANCE
                + " | Served: farthest from expected | Within " + MIX_TOLERANCE
                + " | Replaced by a Back, % of requests |\n|---|---:|---:|---|---|---|---|---:|\n");
        for (SweepPoint p : points) {
            MixCount count = MixCount.of(List.of(p));
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %s | %.1f |%n", p.connector().label(),
                    p.users(), count.measuredTotal, farthestCells(mix, count::chosenPercent),
                    farthestCells(mix, count::measuredPercent), count.measuredTotal == 0 ? 0
                            : 100.0 * (count.noLinks + count.sorryBacks) / count.measuredTotal));
        }
        return md.toString();
    }

    /**
     * @return two table cells: the two interactions farthest from the expected mix, and "yes" or "no" for all within
     *         tolerance
     */
    private static String farthestCells(Mix mix, ToDoubleFunction<State> percent) {
        List<Map.Entry<State, Double>> byDistance = new ArrayList<>();
        for (Map.Entry<State, Double> e : expectedMix(mix).entrySet()) {
            byDistance.add(Map.entry(e.getKey(), percent.applyAsDouble(e.getKey()) - e.getValue()));
        }
        byDistance.sort((a, b) -> Double.compare(Math.abs(b.getValue()), Math.abs(a.getValue())));
        String two = byDistance.stream().limit(2)
                .map(e -> String.format(Locale.ROOT, "%s %+.1f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
        boolean within = byDistance.isEmpty() || Math.abs(byDistance.get(0).getValue()) <= MIX_TOLERANCE;
        return two + " | " + (within ? "yes" : "no");
    }

    /**
     * Page requests per interaction over some points, as served (a Back counted as the page it re-requests) and as
     * the original client counts them (a transition a Back replaced counted for the interaction chosen, not for the
     * page the Back requested).
     */
    private record MixCount(long[] measured, long measuredTotal, long[] chosen, long chosenTotal, long noLinks,
                            long sorryBacks) {

        static MixCount of(List<SweepPoint> points) {
            long[] measured = new long[State.values().length];
            long[] chosen = new long[State.values().length];
            long measuredTotal = 0;
            long chosenTotal = 0;
            long noLinks = 0;
            long sorryBacks = 0;
            for (SweepPoint p : points) {
                RunResult r = p.result();
                noLinks += r.noLinks();
                sorryBacks += r.sorryBacks();
                for (RunResult.Row row : r.rows()) {
                    State s = row.state();
                    if (s.isInteraction()) {
                        int i = s.ordinal();
                        long n = row.count() + row.errors();
                        long c = n + r.noLinksTo().get(i) + r.sorryBacksTo().get(i) - r.fallbacks().get(i);
                        measured[i] += n;
                        measuredTotal += n;
                        chosen[i] += c;
                        chosenTotal += c;
                    }
                }
            }
            return new MixCount(measured, measuredTotal, chosen, chosenTotal, noLinks, sorryBacks);
        }

        double measuredPercent(State s) {
            return measuredTotal == 0 ? 0 : 100.0 * measured[s.ordinal()] / measuredTotal;
        }

        double chosenPercent(State s) {
            return chosenTotal == 0 ? 0 : 100.0 * chosen[s.ordinal()] / chosenTotal;
        }
    }

    /**
     * @return "; links sought: ViewComment 1500, ... (on pages of ViewStory 900, ...)" - the links sought in vain and
     *         the pages that lacked them, most first; empty when none
     */
    private static String soughtLinks(List<SweepPoint> points) {
        long[] sought = new long[State.values().length];
        long[] on = new long[State.values().length];
        for (SweepPoint p : points) {
            for (State s : State.values()) {
                sought[s.ordinal()] += p.result().noLinksTo().get(s.ordinal());
                on[s.ordinal()] += p.result().noLinksOn().get(s.ordinal());
            }
        }
        String list = mostFirst(sought);
        return list.isEmpty() ? "" : "; links sought: " + list + " (on pages of " + mostFirst(on) + ")";
    }

    private static String mostFirst(long[] perState) {
        return java.util.Arrays.stream(State.values()).filter(s -> perState[s.ordinal()] > 0)
                .sorted((a, b) -> Long.compare(perState[b.ordinal()], perState[a.ordinal()]))
                .map(s -> s + " " + perState[s.ordinal()]).collect(Collectors.joining(", "));
    }
}
