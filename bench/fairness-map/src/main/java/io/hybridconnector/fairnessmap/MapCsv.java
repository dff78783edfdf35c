package io.hybridconnector.fairnessmap;

import java.util.ArrayList;
import java.util.List;

/**
 * The map as CSV: {@code windows.csv}, one row per measured window ({@link Window#csvRow}), and {@code cells.csv},
 * one row per cell with the medians, the ratios and the verdict. Plain comma-separated values; a field with a comma
 * or a quote is quoted. Stateless; any thread.
 */
final class MapCsv {

    static final List<String> CELLS_HEADER = List.of("cores", "heavy_kind", "heavy_ms", "heavy_connections",
            "stock_light_p99_ms", "ours_light_p99_ms", "light_p99_bound_ms", "light_p99_ratio", "stock_light_rps",
            "ours_light_rps", "light_rps_ratio", "stock_heavy_rps", "ours_heavy_rps", "heavy_rps_ratio", "met",
            "missed", "error_windows", "max_host_steal");

    private MapCsv() {
    }

    static List<String> windows(List<Window> windows) {
        List<String> lines = new ArrayList<>();
        lines.add(line(Window.CSV_HEADER));
        for (Window w : windows) {
            lines.add(line(w.csvRow()));
        }
        return lines;
    }

    static List<String> cells(List<CellSummary> cells) {
        List<String> lines = new ArrayList<>();
        lines.add(line(CELLS_HEADER));
        for (CellSummary c : cells) {
            Cell cell = c.cell();
            lines.add(line(List.of(Integer.toString(cell.cores()), cell.kind().id(), cell.duration(),
                    Integer.toString(cell.connections()), Window.num(c.stockP99().median()),
                    Window.num(c.oursP99().median()), Window.num(c.verdict().p99BoundMillis()),
                    Window.num(c.p99Ratio()), Window.num(c.stockLight().median()), Window.num(c.oursLight().median()),
                    Window.num(c.lightRatio()), Window.num(c.stockHeavy().median()),
                    Window.num(c.oursHeavy().median()), Window.num(c.heavyRatio()),
                    Boolean.toString(c.verdict().met()), String.join("; ", c.verdict().misses()),
                    Long.toString(c.errorWindows()), Window.num(c.maxSteal()))));
        }
        return lines;
    }

    /** The windows of a {@code windows.csv} written by {@link #windows}. */
    static List<Window> readWindows(List<String> lines) {
        if (lines.isEmpty() || !fields(lines.get(0)).equals(Window.CSV_HEADER)) {
            throw new IllegalArgumentException("not a windows.csv: its header is not " + line(Window.CSV_HEADER));
        }
        List<Window> windows = new ArrayList<>();
        for (String l : lines.subList(1, lines.size())) {
            windows.add(Window.fromCsv(fields(l)));
        }
        return windows;
    }

    /** The fields of one line as {@link #line} writes it (a quoted field may hold commas and doubled quotes). */
    static List<String> fields(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted && ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                field.append('"');
                i++;
            } else if (ch == '"') {
                quoted = !quoted;
            } else if (ch == ',' && !quoted) {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(ch);
            }
        }
        fields.add(field.toString());
        return fields;
    }

    static String line(List<String> fields) {
        List<String> quoted = new ArrayList<>();
        for (String f : fields) {
            quoted.add(f.contains(",") || f.contains("\"") ? "\"" + f.replace("\"", "\"\"") + "\"" : f);
        }
        return String.join(",", quoted);
    }
}
