package io.hybridconnector.fairnessmap;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.report.Stats;

/**
 * The map as markdown: per core count one table, a row per cell, each connector's median (min-max) over rounds of the
 * light p99, the light req/s and the heavy req/s with the ratio ours / stock, and the cell's verdict against the
 * bounds, misses in bold; then how many cells met every bound. Stateless; any thread.
 */
final class MapTable {

    private MapTable() {
    }

    /** @param coresText how the server ran, by core count (e.g. "1 core (Tomcat on CPU 0, ...)") */
    static String render(List<CellSummary> cells, List<Integer> cores, IntFunction<String> coresText) {
        StringBuilder sb = new StringBuilder();
        for (int n : cores) {
            List<CellSummary> these = cells.stream().filter(c -> c.cell().cores() == n).toList();
            if (!these.isEmpty()) {
                sb.append(table(these, coresText.apply(n))).append('\n');
            }
        }
        sb.append(summary(cells)).append('\n').append(notes());
        return sb.toString();
    }

    static String table(List<CellSummary> cells, String cores) {
        StringBuilder sb = new StringBuilder();
        sb.append("### Server on ").append(cores).append("\n\n");
        sb.append("| heavy load beside the light one | light p99 ms, stock / ours | ratio | light req/s, stock / ours "
                + "| ratio | heavy req/s, stock / ours | ratio | bounds |\n");
        sb.append("|---|---|---|---|---|---|---|---|\n");
        for (CellSummary c : cells) {
            sb.append("| ").append(c.cell().scenario().name())
                    .append(" | ").append(c.stockP99().text()).append(" / ").append(c.oursP99().text())
                    .append(" | ").append(ratio(c.p99Ratio(), c.verdict().p99Met()))
                    .append(" | ").append(c.stockLight().text()).append(" / ").append(c.oursLight().text())
                    .append(" | ").append(ratio(c.lightRatio(), c.verdict().lightMet()))
                    .append(" | ").append(c.stockHeavy().text()).append(" / ").append(c.oursHeavy().text())
                    .append(" | ").append(ratio(c.heavyRatio(), c.verdict().heavyMet()))
                    .append(" | ").append(verdict(c)).append(" |\n");
        }
        return sb.toString();
    }

    /** "met", or the bounds missed in bold (the p99 one with its bound); then what disturbed the cell, if anything. */
    static String verdict(CellSummary c) {
        Verdict v = c.verdict();
        List<String> parts = new ArrayList<>();
        if (v.met()) {
            parts.add("met");
        } else {
            List<String> missed = new ArrayList<>();
            for (String m : v.misses()) {
                missed.add(m.equals("light p99") ? "light p99 (bound " + Stats.format(v.p99BoundMillis()) + " ms)"
                        : m);
            }
            parts.add("**missed: " + String.join(", ", missed) + "**");
        }
        if (c.errorWindows() > 0) {
            parts.add("errors in " + c.errorWindows() + " windows");
        }
        if (c.disturbed()) {
            parts.add(String.format(Locale.ROOT, "host steal up to %.1f %%: disturbed", 100 * c.maxSteal()));
        }
        return String.join("; ", parts);
    }

    /** A ratio to three digits ("1.23x", "0.897x": a miss just under a bound does not print as it), bold if missed. */
    static String ratio(double r, boolean met) {
        String text = Double.isNaN(r) ? "n/a" : Stats.format(r) + "x";
        return met ? text : "**" + text + "**";
    }

    static String summary(List<CellSummary> cells) {
        long met = cells.stream().filter(c -> c.verdict().met()).count();
        StringBuilder sb = new StringBuilder();
        sb.append("Cells within every bound: ").append(met).append(" of ").append(cells.size()).append('.');
        List<String> missed = new ArrayList<>();
        for (CellSummary c : cells) {
            if (!c.verdict().met()) {
                missed.add(c.cell().label() + " (" + String.join(", ", c.verdict().misses()) + ")");
            }
        }
        if (!missed.isEmpty()) {
            sb.append(" Missed: ").append(String.join("; ", missed)).append('.');
        }
        return sb.append('\n').toString();
    }

    static String notes() {
        return "\nLight load: " + Fairness.LIGHT_CONNECTIONS + " keep-alive connections on `" + Fairness.LIGHT_PATH
                + "`, closed loop, zero think time; the heavy load on other connections at once, from a second client "
                + "thread. Medians over rounds with (min-max); the ratios are ours / stock of the medians. Bounds "
                + "(issue 38): light p99 <= max(1.2x stock's, stock's + 2 ms), light req/s >= 0.95x stock's, heavy "
                + "req/s >= 0.9x stock's; a missed bound is in bold. A cell with more than "
                + Stats.format(100 * CellSummary.STEAL_DISTURBED) + " % host steal in a window is marked disturbed: "
                + "the hypervisor took the CPUs from both connectors; run it again.\n";
    }
}
