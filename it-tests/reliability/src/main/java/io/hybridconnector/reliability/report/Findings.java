package io.hybridconnector.reliability.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every figure the scenarios measured, stock NIO beside ours, and what each scenario wants to say in words; written
 * as {@code report.md} and {@code findings.csv}. Only measured values go in (each row is added by the scenario that
 * measured it). Used from the harness's main thread.
 */
public final class Findings {

    /** One figure of one scenario. {@code verdict}: "ok", "worse", "differs", or "" when there is nothing to judge. */
    public record Row(String scenario, String metric, String stock, String ours, String verdict) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, List<String>> notes = new LinkedHashMap<>();
    private final Map<String, String> titles = new LinkedHashMap<>();

    public void begin(String scenario, String title) {
        titles.put(scenario, title);
    }

    public void add(String scenario, String metric, Object stock, Object ours, String verdict) {
        rows.add(new Row(scenario, metric, String.valueOf(stock), String.valueOf(ours), verdict));
    }

    /** A figure where lower is better (or equal is the goal): "ok" when ours is at most stock's plus a slack. */
    public void addLowerIsBetter(String scenario, String metric, double stock, double ours, double slack) {
        add(scenario, metric, format(stock), format(ours), ours <= stock + slack ? "ok" : "worse");
    }

    /** A figure both must show the same. */
    public void addSame(String scenario, String metric, Object stock, Object ours) {
        add(scenario, metric, stock, ours, String.valueOf(stock).equals(String.valueOf(ours)) ? "ok" : "differs");
    }

    public void note(String scenario, String text) {
        notes.computeIfAbsent(scenario, k -> new ArrayList<>()).add(text);
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

    public void write(Path dir, String header) throws IOException {
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder("scenario,metric,stock,ours,verdict\n");
        for (Row r : rows) {
            csv.append(r.scenario).append(',').append(quote(r.metric)).append(',').append(quote(r.stock))
                    .append(',').append(quote(r.ours)).append(',').append(r.verdict).append('\n');
        }
        Files.writeString(dir.resolve("findings.csv"), csv, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("report.md"), markdown(header), StandardCharsets.UTF_8);
    }

    String markdown(String header) {
        StringBuilder md = new StringBuilder(header).append('\n');
        for (Map.Entry<String, String> s : titles.entrySet()) {
            md.append("## ").append(s.getKey()).append(": ").append(s.getValue()).append("\n\n");
            md.append("| figure | stock NIO | ours | verdict |\n|---|---|---|---|\n");
            for (Row r : rows) {
                if (r.scenario.equals(s.getKey())) {
                    md.append("| ").append(r.metric).append(" | ").append(r.stock).append(" | ").append(r.ours)
                            .append(" | ").append(r.verdict).append(" |\n");
                }
            }
            for (String n : notes.getOrDefault(s.getKey(), List.of())) {
                md.append("\n").append(n).append('\n');
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
