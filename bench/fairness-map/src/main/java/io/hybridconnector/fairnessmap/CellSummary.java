package io.hybridconnector.fairnessmap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.hybridconnector.bench.harness.report.Stats;

/**
 * One cell over its rounds: each connector's light p99, light req/s and heavy req/s as median, min and max, the three
 * ratios ours / stock of the medians, the {@link Verdict}, and what might have disturbed it (errors, host steal).
 * Immutable.
 */
record CellSummary(Cell cell, Figure stockP99, Figure oursP99, Figure stockLight, Figure oursLight, Figure stockHeavy,
        Figure oursHeavy, Verdict verdict, long errorWindows, double maxSteal) {

    /** Host steal in any window of a cell above which the cell is marked disturbed (as the main job marks a row). */
    static final double STEAL_DISTURBED = 0.02;

    /** Median, min and max of one figure over rounds (NaN without rounds). */
    record Figure(double median, double min, double max) {

        static Figure of(double[] values) {
            if (values.length == 0) {
                return new Figure(Double.NaN, Double.NaN, Double.NaN);
            }
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (double v : values) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            return new Figure(Stats.median(values), min, max);
        }

        /** "median (min-max)" as the main job prints it. */
        String text() {
            return Double.isNaN(median) ? "n/a" : min == max ? Stats.format(median)
                    : Stats.format(median) + " (" + Stats.format(min) + "-" + Stats.format(max) + ")";
        }
    }

    /** The cells of {@code windows} summarised, in the order their first window was run. */
    static List<CellSummary> of(List<Window> windows) {
        Map<Cell, List<Window>> byCell = new LinkedHashMap<>();
        for (Window w : windows) {
            byCell.computeIfAbsent(w.cell(), c -> new ArrayList<>()).add(w);
        }
        List<CellSummary> cells = new ArrayList<>();
        byCell.forEach((cell, ws) -> cells.add(of(cell, ws)));
        return cells;
    }

    static CellSummary of(Cell cell, List<Window> windows) {
        List<Window> stock = windows.stream().filter(Window::isStock).toList();
        List<Window> ours = windows.stream().filter(w -> !w.isStock()).toList();
        Figure stockP99 = figure(stock, Window::lightP99);
        Figure oursP99 = figure(ours, Window::lightP99);
        Figure stockLight = figure(stock, Window::lightRps);
        Figure oursLight = figure(ours, Window::lightRps);
        Figure stockHeavy = figure(stock, Window::heavyRps);
        Figure oursHeavy = figure(ours, Window::heavyRps);
        Verdict v = Verdict.of(stockP99.median(), oursP99.median(), stockLight.median(), oursLight.median(),
                stockHeavy.median(), oursHeavy.median());
        long errorWindows = windows.stream().filter(w -> !w.errors().equals("0")).count();
        double steal = windows.stream().mapToDouble(Window::steal).max().orElse(0);
        return new CellSummary(cell, stockP99, oursP99, stockLight, oursLight, stockHeavy, oursHeavy, v,
                errorWindows, steal);
    }

    double p99Ratio() {
        return oursP99.median() / stockP99.median();
    }

    double lightRatio() {
        return oursLight.median() / stockLight.median();
    }

    double heavyRatio() {
        return oursHeavy.median() / stockHeavy.median();
    }

    boolean disturbed() {
        return maxSteal > STEAL_DISTURBED;
    }

    private static Figure figure(List<Window> windows, ToDoubleFunction<Window> f) {
        return Figure.of(windows.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).toArray());
    }
}
