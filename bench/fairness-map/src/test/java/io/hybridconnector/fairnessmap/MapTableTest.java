package io.hybridconnector.fairnessmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The table, the CSV and the heat maps' grids, from made-up windows. */
class MapTableTest {

    private static final Cell MISSED = new Cell(1, HeavyKind.CPU, 2, 16);
    private static final Cell MET = new Cell(1, HeavyKind.SLEEP, 20, 2);
    private static final Cell TWO_CORES = new Cell(2, HeavyKind.DOWNLOAD, 0, 2);

    @Test
    void aRowGivesMediansWithTheirRangeTheRatiosAndTheVerdict() {
        List<CellSummary> cells = CellSummary.of(windows());
        String md = MapTable.render(cells, List.of(1, 2), n -> n + " test cores");
        assertTrue(md.contains("### Server on 1 test cores"), md);
        assertTrue(md.contains("### Server on 2 test cores"), md);
        // stock p99 30 (29-31), ours 90 (88-95): 3x, bound max(36, 32) = 36
        assertTrue(md.contains("| 16 computing 2 ms (CPU time) | 30.0 (29.0-31.0) / 90.0 (88.0-95.0) | **3.00x** |"),
                md);
        assertTrue(md.contains("**missed: light p99 (bound 36.0 ms), light req/s**"), md);
        assertTrue(md.contains("| 2 sleeping 20 ms |"), md);
        assertTrue(md.contains("| met |"), md);
        assertTrue(md.contains("Cells within every bound: 2 of 3. Missed: 1 core, 16 computing 2 ms (CPU time) "
                + "(light p99, light req/s)."), md);
    }

    @Test
    void errorsAndHostStealAreSaid() {
        List<Window> ws = new ArrayList<>(windows());
        ws.set(0, window(MISSED, FairnessMap.STOCK, 1, 1000, 30, 500, "heavy:timeout=1", 0.05));
        CellSummary c = CellSummary.of(ws).get(0);
        assertEquals(1, c.errorWindows());
        assertTrue(c.disturbed());
        assertTrue(MapTable.verdict(c).endsWith("; errors in 1 windows; host steal up to 5.0 %: disturbed"),
                MapTable.verdict(c));
    }

    @Test
    void cellsCsvHasARowPerCellAsLongAsItsHeader() {
        List<String> csv = MapCsv.cells(CellSummary.of(windows()));
        assertEquals(4, csv.size());
        for (String line : csv) {
            assertEquals(MapCsv.CELLS_HEADER.size(), line.split(",", -1).length, line);
        }
        assertTrue(csv.get(1).startsWith("1,cpu,2,16,30.000000,90.000000,36.000000,3.000000,"), csv.get(1));
        assertTrue(csv.get(1).contains(",false,light p99; light req/s,0,"), csv.get(1));
        assertEquals(1 + windows().size(), MapCsv.windows(windows()).size());
        assertEquals("a,\"b,c\",\"say \"\"x\"\"\"", MapCsv.line(List.of("a", "b,c", "say \"x\"")));
    }

    @Test
    void windowsCsvReadsBackIntoTheSameWindows() {
        List<Window> ws = new ArrayList<>(windows());
        ws.set(0, window(MISSED, FairnessMap.STOCK, 1, 1000, 30, 500, "heavy:timeout=1 light:closed=2", 0.05));
        List<Window> back = MapCsv.readWindows(MapCsv.windows(ws));
        assertEquals(ws.size(), back.size());
        for (int i = 0; i < ws.size(); i++) {
            assertEquals(ws.get(i).csvRow(), back.get(i).csvRow());
            assertEquals(ws.get(i).cell(), back.get(i).cell());
        }
        assertEquals(List.of("a", "b,c", "say \"x\"", ""), MapCsv.fields(MapCsv.line(List.of("a", "b,c", "say \"x\"",
                ""))));
    }

    @Test
    void aHeatMapPutsEachCellAtItsDurationAndConnectionsAndLeavesTheRestEmpty() {
        List<CellSummary> cells = CellSummary.of(windows()).stream().filter(c -> c.cell().kind() == HeavyKind.CPU)
                .toList();
        var panels = HeatMaps.panels(HeavyKind.CPU, cells);
        assertEquals(List.of("light p99", "light req/s", "heavy req/s"),
                panels.stream().map(p -> p.title()).toList());
        var p99 = panels.get(0);
        assertEquals(List.of("32", "16", "8", "4", "2", "1"), p99.rows());
        assertEquals("2", p99.columns().get(2));
        assertEquals(3.0, p99.values()[1][2], 1e-9);
        assertTrue(p99.misses()[1][2]);
        assertTrue(Double.isNaN(p99.values()[0][0]));
        assertEquals(1.0, panels.get(2).values()[1][2], 1e-9);
        assertTrue(!panels.get(2).misses()[1][2]);
    }

    /** Three rounds of three cells: the first misses its latency and light bounds, the others meet every bound. */
    private static List<Window> windows() {
        List<Window> ws = new ArrayList<>();
        double[] stockP99 = { 29, 30, 31 };
        double[] oursP99 = { 95, 90, 88 };
        for (int round = 1; round <= 3; round++) {
            ws.add(window(MISSED, FairnessMap.STOCK, round, 1000, stockP99[round - 1], 500, "0", 0));
            ws.add(window(MISSED, FairnessMap.OURS, round, 500, oursP99[round - 1], 500, "0", 0));
            ws.add(window(MET, FairnessMap.STOCK, round, 20000, 10, 90, "0", 0));
            ws.add(window(MET, FairnessMap.OURS, round, 21000, 9, 95, "0", 0));
            ws.add(window(TWO_CORES, FairnessMap.STOCK, round, 30000, 5, 10, "0", 0));
            ws.add(window(TWO_CORES, FairnessMap.OURS, round, 30000, 6.5, 10, "0", 0));
        }
        return ws;
    }

    private static Window window(Cell cell, String connector, int round, double lightRps, double p99,
            double heavyRps, String errors, double steal) {
        return new Window(cell, connector, round, lightRps, p99 / 3, p99, p99 * 2, heavyRps, (long) heavyRps * 2,
                errors, 0.3, 0.9, 1.0, steal);
    }
}
