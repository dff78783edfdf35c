package io.hybridconnector.experiments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One measured window as named string fields (one CSV line): keys describe the cell, values are numbers per request
 * or raw counts. Numbers are written with {@code %.6g}; NaN means not measured. Not thread-safe.
 */
final class Row {

    /** Fields that identify a cell; the rest are metrics. */
    static final List<String> KEYS = List.of("experiment", "condition", "workload", "concurrency", "variant");

    private final Map<String, String> f = new LinkedHashMap<>();

    Row put(String key, String value) {
        if (value.indexOf(',') >= 0 || value.indexOf('\n') >= 0) {
            value = value.replace(',', ';').replace('\n', ' ');
        }
        f.put(key, value);
        return this;
    }

    Row put(String key, double value) {
        return put(key, Double.isNaN(value) ? "NaN" : String.format(Locale.ROOT, "%.6g", value));
    }

    Row put(String key, long value) {
        return put(key, Long.toString(value));
    }

    String s(String key) {
        return f.getOrDefault(key, "");
    }

    double d(String key) {
        String v = f.get(key);
        if (v == null || v.isEmpty()) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** The cell this row belongs to, without the round. */
    String cellKey() {
        StringBuilder sb = new StringBuilder();
        for (String k : KEYS) {
            sb.append(s(k)).append('|');
        }
        return sb.toString();
    }

    Map<String, String> fields() {
        return f;
    }

    /** Writes rows with the union of their fields as the header, in first-seen order. */
    static void writeCsv(Path file, List<Row> rows) throws IOException {
        List<String> header = new ArrayList<>();
        for (Row r : rows) {
            for (String k : r.f.keySet()) {
                if (!header.contains(k)) {
                    header.add(k);
                }
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(String.join(",", header));
        for (Row r : rows) {
            List<String> cells = new ArrayList<>();
            for (String k : header) {
                cells.add(r.s(k));
            }
            lines.add(String.join(",", cells));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, lines);
    }

    static List<Row> readCsv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Row> rows = new ArrayList<>();
        if (lines.isEmpty()) {
            return rows;
        }
        String[] header = lines.get(0).split(",", -1);
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            Row r = new Row();
            for (int i = 0; i < header.length && i < cells.length; i++) {
                if (!cells[i].isEmpty()) {
                    r.f.put(header[i], cells[i]);
                }
            }
            rows.add(r);
        }
        return rows;
    }
}
