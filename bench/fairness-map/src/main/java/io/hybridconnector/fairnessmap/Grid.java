package io.hybridconnector.fairnessmap;

import java.util.ArrayList;
import java.util.List;

/**
 * The cells of the map (issue 38, "What to build", item 1): every heavy kind at every heavy duration and connection
 * count, on 1 core and on 2, for the full profile; a diagonal of it for the quick one. Stateless; any thread.
 */
final class Grid {

    static final List<Double> DURATIONS_MS = List.of(0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 200.0);
    static final List<Integer> CONNECTIONS = List.of(1, 2, 4, 8, 16, 32);
    static final List<Integer> CORES = List.of(1, 2);

    /**
     * The quick profile's cells for a kind with a duration: three of the grid's anti-diagonal (duration and
     * connection count rising against each other, 32-40 ms of heavy work in flight), the two cells issue 38 found
     * failing among them (16 x 2 ms, 8 x 5 ms), and a longer, fewer one.
     */
    static final List<Point> QUICK_DIAGONAL = List.of(new Point(2, 16), new Point(5, 8), new Point(20, 2));
    /** The random 3 in 10 at 30 ms: 9 ms a request on average, so 4 connections are on the same diagonal. */
    static final int QUICK_SOMETIMES_CONNECTIONS = 4;
    /** The downloads as the main job runs them. */
    static final int QUICK_DOWNLOAD_CONNECTIONS = 2;

    /** A heavy duration and connection count. */
    record Point(double ms, int connections) {
    }

    private Grid() {
    }

    /** Every cell, by core count, then kind, then duration, then connections. */
    static List<Cell> full(List<Integer> cores, List<HeavyKind> kinds) {
        List<Cell> cells = new ArrayList<>();
        for (int n : cores) {
            for (HeavyKind kind : kinds) {
                for (double ms : kind.hasDuration() ? DURATIONS_MS : List.of(0.0)) {
                    for (int c : CONNECTIONS) {
                        cells.add(new Cell(n, kind, ms, c));
                    }
                }
            }
        }
        return cells;
    }

    /** The diagonal: {@link #QUICK_DIAGONAL} for the kinds with a duration, one cell for each other kind. */
    static List<Cell> quick(List<Integer> cores, List<HeavyKind> kinds) {
        List<Cell> cells = new ArrayList<>();
        for (int n : cores) {
            for (HeavyKind kind : kinds) {
                if (kind.hasDuration()) {
                    for (Point p : QUICK_DIAGONAL) {
                        cells.add(new Cell(n, kind, p.ms(), p.connections()));
                    }
                } else {
                    cells.add(new Cell(n, kind, 0, kind == HeavyKind.SOMETIMES ? QUICK_SOMETIMES_CONNECTIONS
                            : QUICK_DOWNLOAD_CONNECTIONS));
                }
            }
        }
        return cells;
    }

    /** The durations a kind's rows of the map have: the grid's, or just 0 for a kind without one. */
    static List<Double> durations(HeavyKind kind) {
        return kind.hasDuration() ? DURATIONS_MS : List.of(0.0);
    }
}
