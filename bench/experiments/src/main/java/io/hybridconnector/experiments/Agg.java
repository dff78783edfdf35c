package io.hybridconnector.experiments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Rows grouped by cell, with median / min / max over rounds per metric. Immutable after construction. */
final class Agg {

    /** Median, min and max of one metric in one cell; NaN when never measured. */
    record Stat(double median, double min, double max, int n) {

        static final Stat NONE = new Stat(Double.NaN, Double.NaN, Double.NaN, 0);

        static Stat of(List<Double> values) {
            double[] v = values.stream().mapToDouble(Double::doubleValue).filter(x -> !Double.isNaN(x)).sorted()
                    .toArray();
            if (v.length == 0) {
                return NONE;
            }
            double med = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            return new Stat(med, v[0], v[v.length - 1], v.length);
        }

        boolean ok() {
            return n > 0;
        }

        /** "1,234 (1,100-1,300)", or "1.23" with a single round. */
        String text() {
            if (!ok()) {
                return "-";
            }
            return n == 1 ? num(median) : num(median) + " (" + num(min) + "-" + num(max) + ")";
        }

        String med() {
            return ok() ? num(median) : "-";
        }
    }

    private final Map<String, List<Row>> cells = new LinkedHashMap<>();

    Agg(List<Row> rows) {
        for (Row r : rows) {
            cells.computeIfAbsent(r.cellKey(), k -> new ArrayList<>()).add(r);
        }
    }

    static String key(String experiment, String condition, String workload, int concurrency, String variant) {
        return experiment + "|" + condition + "|" + workload + "|" + concurrency + "|" + variant + "|";
    }

    List<Row> rows(String experiment, String condition, String workload, int concurrency, String variant) {
        return cells.getOrDefault(key(experiment, condition, workload, concurrency, variant), List.of());
    }

    Stat stat(String experiment, String condition, String workload, int c, String variant, String metric) {
        List<Double> v = new ArrayList<>();
        for (Row r : rows(experiment, condition, workload, c, variant)) {
            v.add(r.d(metric));
        }
        return Stat.of(v);
    }

    /** A metric derived from two others per round (e.g. a ratio), then aggregated. */
    Stat ratio(String experiment, String condition, String workload, int c, String variant, String num, String den) {
        List<Double> v = new ArrayList<>();
        for (Row r : rows(experiment, condition, workload, c, variant)) {
            v.add(r.d(num) / r.d(den));
        }
        return Stat.of(v);
    }

    /** Cell stats over all rows matching the first keys, whichever experiment carried them. */
    Stat anyExperiment(String condition, String workload, int c, String variant, String metric) {
        List<Double> v = new ArrayList<>();
        for (List<Row> list : cells.values()) {
            for (Row r : list) {
                if (r.s("condition").equals(condition) && r.s("workload").equals(workload)
                        && (int) r.d("concurrency") == c && r.s("variant").equals(variant)) {
                    v.add(r.d(metric));
                }
            }
        }
        return Stat.of(v);
    }

    /** Compact number formatting for tables: 3 significant digits, thousands separated. */
    static String num(double x) {
        if (Double.isNaN(x)) {
            return "-";
        }
        double a = Math.abs(x);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", x);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", x);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", x);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", x);
        }
        if (a == 0) {
            return "0";
        }
        return String.format(Locale.ROOT, "%.3f", x);
    }

    static double[] arr(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static String pct(double x) {
        return Double.isNaN(x) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * x);
    }

    static List<Double> list(double... v) {
        return Arrays.stream(v).boxed().toList();
    }
}
