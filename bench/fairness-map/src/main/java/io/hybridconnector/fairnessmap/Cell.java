package io.hybridconnector.fairnessmap;

import io.hybridconnector.bench.harness.load.Fairness;

/**
 * One cell of the map: the server's core count, the heavy kind, its duration ({@code ms}, 0 for a kind without one)
 * and how many heavy connections run beside the light ones. Immutable.
 */
record Cell(int cores, HeavyKind kind, double ms, int connections) {

    Cell {
        if (!kind.hasDuration() && ms != 0) {
            throw new IllegalArgumentException(kind.label() + " has no duration, got " + ms + " ms");
        }
    }

    Fairness.Scenario scenario() {
        return kind.scenario(ms, connections);
    }

    /** The duration as the tables print it: "-" for a kind without one. */
    String duration() {
        return kind.hasDuration() ? HeavyKind.millis(ms) : "-";
    }

    /** E.g. "1 core, 16 computing (CPU time) 2 ms". */
    String label() {
        return cores + (cores == 1 ? " core, " : " cores, ") + scenario().name();
    }
}
