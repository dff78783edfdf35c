package io.hybridconnector.reliability.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every figure the scenarios measured, stock NIO beside ours, what each scenario wants to say in words, and the charts
 * it drew; written as {@code report.md} and {@code findings.csv}. Only measured values go in (each row is added by the
 * scenario that measured it). Used from the harness's main thread.
 */
public final class Findings {

    /** One figure of one scenario. {@code verdict}: "ok", "worse", "differs", "fails on both", or "" when there is nothing to judge. */
    public record Row(String scenario, String metric, String stock, String ours, String verdict) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, List<String>> notes = new LinkedHashMap<>();
    private final Map<String, String> titles = new LinkedHashMap<>();
    private final Map<String, List<String>> charts = new LinkedHashMap<>();

    /**
     * A markdown image whose target is a relative path: written beside the section, so {@code report.md} (one folder
     * up) needs {@code sections/} in front.
     */
    private static final Pattern RELATIVE_IMAGE = Pattern.compile("!\\[([^\\]]*)\\]\\((?![a-zA-Z][a-zA-Z+.-]*:|/)([^)]+)\\)");

    /** Where {@link #write} puts each section's markdown, and where a scenario puts the charts the section shows. */
    public static Path sectionsDir(Path dir) {
        return dir.resolve("sections");
    }

    public void begin(String scenario, String title) {
        titles.put(scenario, title);
    }

    public void add(String scenario, String metric, Object stock, Object ours, String verdict) {
        rows.add(new Row(scenario, metric, String.valueOf(stock), String.valueOf(ours), verdict));
    }

    /** A figure where lower is better (or equal is the goal): "ok" when ours is at most stock's plus a slack. */
    public void addLowerIsBetter(String scenario, String metric, double stock, double ours, double slack) {
        add(scenario, metric, format(stock), format(ours), lowerIsBetter(stock, ours, slack));
    }

    /**
     * The verdict of a lower-is-better figure. No value (NaN: e.g. a latency where no request was answered) counts as
     * the worst there is, so ours with a figure beats stock without one.
     */
    static String lowerIsBetter(double stock, double ours, double slack) {
        double s = Double.isNaN(stock) ? Double.POSITIVE_INFINITY : stock;
        double o = Double.isNaN(ours) ? Double.POSITIVE_INFINITY : ours;
        return o <= s + slack || o == s ? "ok" : "worse";
    }

    /** A figure both must show the same. */
    public void addSame(String scenario, String metric, Object stock, Object ours) {
        add(scenario, metric, stock, ours, String.valueOf(stock).equals(String.valueOf(ours)) ? "ok" : "differs");
    }

    public void note(String scenario, String text) {
        notes.computeIfAbsent(scenario, k -> new ArrayList<>()).add(text);
    }

    /**
     * A chart of the scenario, shown after its notes: {@code file} is the PNG's name in {@link #sectionsDir}, where
     * the scenario wrote it, so the link is relative and works wherever the results folder is committed.
     */
    public void chart(String scenario, String caption, String file) {
        charts.computeIfAbsent(scenario, k -> new ArrayList<>()).add("![" + caption + "](" + file + ")");
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public static String format(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e12) {
            return Long.toString((long) v);
        }
        return Math.abs(v) >= 100 ? String.format("%.0f", v) : String.format("%.2f", v);
    }

    /**
     * Writes each scenario's section as {@code sections/NAME.md} and {@code sections/NAME.csv}, then {@code
     * report.md} and {@code findings.csv} from every section in {@code dir}, in {@code order}: scenarios run by
     * separate invocations into the same directory (each short enough to hold the machine's lock briefly) end up
     * in one report.
     */
    public void write(Path dir, String header, List<String> order) throws IOException {
        Path sections = sectionsDir(dir);
        Files.createDirectories(sections);
        for (String scenario : titles.keySet()) {
            Files.writeString(sections.resolve(scenario + ".md"), section(scenario), StandardCharsets.UTF_8);
            StringBuilder csv = new StringBuilder();
            for (Row r : rows) {
                if (r.scenario.equals(scenario)) {
                    csv.append(r.scenario).append(',').append(quote(r.metric)).append(',').append(quote(r.stock))
                            .append(',').append(quote(r.ours)).append(',').append(r.verdict).append('\n');
                }
            }
            Files.writeString(sections.resolve(scenario + ".csv"), csv, StandardCharsets.UTF_8);
        }
        StringBuilder md = new StringBuilder(header).append('\n');
        StringBuilder csv = new StringBuilder("scenario,metric,stock,ours,verdict\n");
        for (String scenario : order) {
            Path section = sections.resolve(scenario + ".md");
            if (Files.exists(section)) {
                md.append(fromReportFolder(Files.readString(section, StandardCharsets.UTF_8)));
                csv.append(Files.readString(sections.resolve(scenario + ".csv"), StandardCharsets.UTF_8));
            }
        }
        Files.writeString(dir.resolve("findings.csv"), csv, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("report.md"), md, StandardCharsets.UTF_8);
    }

    String section(String scenario) {
        StringBuilder md = new StringBuilder();
        md.append("## ").append(scenario).append(": ").append(titles.get(scenario)).append("\n\n");
        md.append("| figure | stock NIO | ours | verdict |\n|---|---|---|---|\n");
        for (Row r : rows) {
            if (r.scenario.equals(scenario)) {
                md.append("| ").append(r.metric).append(" | ").append(r.stock).append(" | ").append(r.ours)
                        .append(" | ").append(r.verdict).append(" |\n");
            }
        }
        for (String n : notes.getOrDefault(scenario, List.of())) {
            md.append("\n").append(n).append('\n');
        }
        for (String c : charts.getOrDefault(scenario, List.of())) {
            md.append("\n").append(c).append('\n');
        }
        return md.append('\n').toString();
    }

    /** A section's markdown as {@code report.md} shows it: relative image links point into {@code sections/}. */
    static String fromReportFolder(String sectionMarkdown) {
        Matcher m = RELATIVE_IMAGE.matcher(sectionMarkdown);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement("![" + m.group(1) + "](sections/" + m.group(2) + ")"));
        }
        return m.appendTail(sb).toString();
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
