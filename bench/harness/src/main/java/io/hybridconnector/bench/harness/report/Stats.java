package io.hybridconnector.bench.harness.report;

import java.util.Arrays;
import java.util.Locale;

/**
 * Medians over interleaved rounds and the number format of the main job's tables (and of the fairness tables the
 * experiments reuse), in one place so that both print a figure the same way. Stateless; any thread.
 */
public final class Stats {

    private Stats() {
    }

    /** "median (min-max)", or the single value for one round. */
    public static String summary(double[] values) {
        if (values.length == 0) {
            return "";
        }
        double[] v = values.clone();
        Arrays.sort(v);
        if (v.length == 1) {
            return format(v[0]);
        }
        return format(median(v)) + " (" + format(v[0]) + "-" + format(v[v.length - 1]) + ")";
    }

    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** Three significant digits, thousands separated from 1000 up. */
    public static String format(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a == 0) {
            return "0";
        }
        int decimals = Math.max(0, 2 - (int) Math.floor(Math.log10(a)));
        return String.format(Locale.ROOT, "%." + Math.min(decimals, 4) + "f", v);
    }
}
