package io.hybridconnector.fairnessmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The map's cells: the grid for the full profile, a diagonal of it for the quick one. */
class GridTest {

    private static final List<HeavyKind> ALL_KINDS = List.of(HeavyKind.values());

    @Test
    void theFullProfileRunsEveryDurationAndConnectionCountOfEveryKindOnBothCoreCounts() {
        List<Cell> cells = Grid.full(Grid.CORES, ALL_KINDS);
        // per core count: four kinds with a duration x 8 durations x 6 counts, two without x 6 counts
        assertEquals(2 * (4 * 8 * 6 + 2 * 6), cells.size());
        assertEquals(cells.size(), new HashSet<>(cells).size(), "no cell twice");
        for (Cell c : cells) {
            assertTrue(Grid.CONNECTIONS.contains(c.connections()), c.label());
            assertTrue(c.kind().hasDuration() ? Grid.DURATIONS_MS.contains(c.ms()) : c.ms() == 0, c.label());
        }
        assertEquals(List.of(0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 200.0), Grid.DURATIONS_MS);
        assertEquals(List.of(1, 2, 4, 8, 16, 32), Grid.CONNECTIONS);
    }

    @Test
    void theQuickProfileIsADiagonalOfTheFullGridWithEveryKindOnEveryCoreCount() {
        List<Cell> quick = Grid.quick(Grid.CORES, ALL_KINDS);
        Set<Cell> full = new HashSet<>(Grid.full(Grid.CORES, ALL_KINDS));
        assertEquals(2 * (4 * 3 + 2), quick.size());
        for (Cell c : quick) {
            assertTrue(full.contains(c), "on the grid: " + c.label());
        }
        for (int cores : Grid.CORES) {
            for (HeavyKind kind : HeavyKind.values()) {
                assertTrue(quick.stream().anyMatch(c -> c.cores() == cores && c.kind() == kind), kind + " " + cores);
            }
        }
        // the diagonal: more connections for shorter requests, the two failing cells on it
        assertTrue(quick.contains(new Cell(1, HeavyKind.CPU, 2, 16)));
        assertTrue(quick.contains(new Cell(1, HeavyKind.CPU, 5, 8)));
        for (int i = 1; i < Grid.QUICK_DIAGONAL.size(); i++) {
            Grid.Point before = Grid.QUICK_DIAGONAL.get(i - 1);
            Grid.Point p = Grid.QUICK_DIAGONAL.get(i);
            assertTrue(p.ms() > before.ms() && p.connections() < before.connections(), p.toString());
        }
    }

    @Test
    void kindsAndCoreCountsCanBeNarrowed() {
        List<Cell> cells = Grid.quick(List.of(2), List.of(HeavyKind.SLEEP, HeavyKind.DOWNLOAD));
        assertEquals(List.of(new Cell(2, HeavyKind.SLEEP, 2, 16), new Cell(2, HeavyKind.SLEEP, 5, 8),
                new Cell(2, HeavyKind.SLEEP, 20, 2), new Cell(2, HeavyKind.DOWNLOAD, 0, 2)), cells);
    }
}
