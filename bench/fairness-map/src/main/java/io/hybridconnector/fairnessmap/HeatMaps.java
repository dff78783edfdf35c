package io.hybridconnector.fairnessmap;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

import io.hybridconnector.bench.harness.plot.Charts;

/**
 * The map's heat maps: one PNG per core count and heavy kind, with the three ratios ours / stock side by side (light
 * p99, light req/s, heavy req/s), heavy duration across and heavy connections down, each cell coloured by its bound
 * ({@link Charts#heatMaps}). Cells not run (the quick profile runs a diagonal) are grey. Stateless; the main thread.
 */
final class HeatMaps {

    private HeatMaps() {
    }

    /** Writes the PNGs into {@code dir}; returns their file names. */
    static List<String> write(Path dir, List<CellSummary> cells) throws IOException {
        List<String> files = new ArrayList<>();
        for (int cores : Grid.CORES) {
            for (HeavyKind kind : HeavyKind.values()) {
                List<CellSummary> these = cells.stream()
                        .filter(c -> c.cell().cores() == cores && c.cell().kind() == kind).toList();
                if (these.isEmpty()) {
                    continue;
                }
                String name = fileName(cores, kind);
                Charts.heatMaps(dir.resolve(name), title(cores, kind), kind.hasDuration() ? "heavy request, ms"
                        : "(no duration)", "heavy connections", panels(kind, these));
                files.add(name);
            }
        }
        return files;
    }

    static String fileName(int cores, HeavyKind kind) {
        return "heatmap-" + cores + "core-" + kind.id() + ".png";
    }

    private static String title(int cores, HeavyKind kind) {
        return "Beside heavy requests " + kind.label() + ", server on " + cores + (cores == 1 ? " core" : " cores")
                + ": ours / stock NIO";
    }

    static List<Charts.HeatMap> panels(HeavyKind kind, List<CellSummary> cells) {
        return List.of(
                panel("light p99", kind, cells, CellSummary::p99Ratio, c -> c.verdict().p99Met(), true),
                panel("light req/s", kind, cells, CellSummary::lightRatio, c -> c.verdict().lightMet(), false),
                panel("heavy req/s", kind, cells, CellSummary::heavyRatio, c -> c.verdict().heavyMet(), false));
    }

    /** One ratio over the kind's grid: durations across, connections down from the most. */
    private static Charts.HeatMap panel(String title, HeavyKind kind, List<CellSummary> cells,
            ToDoubleFunction<CellSummary> ratio, Predicate<CellSummary> met, boolean lowerIsBetter) {
        List<Double> durations = Grid.durations(kind);
        List<Integer> connections = new ArrayList<>(Grid.CONNECTIONS);
        Collections.reverse(connections);
        double[][] values = new double[connections.size()][durations.size()];
        boolean[][] misses = new boolean[connections.size()][durations.size()];
        for (int r = 0; r < connections.size(); r++) {
            for (int d = 0; d < durations.size(); d++) {
                values[r][d] = Double.NaN;
                for (CellSummary c : cells) {
                    if (c.cell().connections() == connections.get(r) && c.cell().ms() == durations.get(d)) {
                        values[r][d] = ratio.applyAsDouble(c);
                        misses[r][d] = !met.test(c);
                    }
                }
            }
        }
        List<String> columns = kind.hasDuration() ? durations.stream().map(HeavyKind::millis).toList()
                : List.of("-");
        return new Charts.HeatMap(title, columns, connections.stream().map(String::valueOf).toList(), values, misses,
                lowerIsBetter);
    }
}
