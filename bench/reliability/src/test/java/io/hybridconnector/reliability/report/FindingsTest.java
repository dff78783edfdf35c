package io.hybridconnector.reliability.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Verdicts, and one report built from sections that separate invocations wrote into the same directory. */
class FindingsTest {

    @TempDir
    Path dir;

    @Test
    void verdictsFollowTheirRule() {
        Findings f = new Findings();
        f.addLowerIsBetter("s", "a", 10, 10.5, 1);
        f.addLowerIsBetter("s", "b", 10, 12, 1);
        f.addSame("s", "c", "400, closed", "400, closed");
        f.addSame("s", "d", "400, closed", "400, kept open");
        assertEquals(List.of("ok", "worse", "ok", "differs"), f.rows().stream().map(Findings.Row::verdict).toList());
    }

    @Test
    void noFigureIsTheWorstFigure() {
        // slowloris, full profile: stock's normal clients got no response at all (no p99), ours' got some
        assertEquals("ok", Findings.lowerIsBetter(Double.NaN, 4.55, 1));
        assertEquals("worse", Findings.lowerIsBetter(4.55, Double.NaN, 1));
        assertEquals("ok", Findings.lowerIsBetter(Double.NaN, Double.NaN, 1));
        assertEquals("worse", Findings.lowerIsBetter(1, 2.5, 1));
    }

    @Test
    void sectionsFromSeparateRunsMakeOneReportInTheGivenOrder() throws IOException {
        Findings second = new Findings();
        second.begin("1-idle", "idle");
        second.add("1-idle", "threads", 1, 2, "worse");
        second.write(dir, "# header\n", List.of("4-faults", "1-idle"));
        Findings first = new Findings();
        first.begin("4-faults", "faults");
        first.add("4-faults", "fds, after - before", 0, 0, "ok");
        first.write(dir, "# header\n", List.of("4-faults", "1-idle"));

        String report = Files.readString(dir.resolve("report.md"));
        assertTrue(report.indexOf("## 4-faults") < report.indexOf("## 1-idle"), report);
        List<String> csv = Files.readAllLines(dir.resolve("findings.csv"));
        assertEquals(List.of("scenario,metric,stock,ours,verdict", "4-faults,\"fds, after - before\",0,0,ok",
                "1-idle,threads,1,2,worse"), csv);
    }

    @Test
    void chartsAreLinkedBesideTheSectionAndFromTheReport() throws IOException {
        Findings f = new Findings();
        f.begin("7-soak", "soak");
        f.add("7-soak", "fds", 1, 1, "ok");
        f.chart("7-soak", "fds over time", "7-soak-fds.png");
        f.note("7-soak", "see ![elsewhere](https://example.com/x.png) and ![root](/abs.png)");
        f.write(dir, "# header\n", List.of("7-soak"));

        String section = Files.readString(Findings.sectionsDir(dir).resolve("7-soak.md"));
        assertTrue(section.contains("![fds over time](7-soak-fds.png)"), section);
        String report = Files.readString(dir.resolve("report.md"));
        assertTrue(report.contains("![fds over time](sections/7-soak-fds.png)"), report);
        assertTrue(report.contains("![elsewhere](https://example.com/x.png) and ![root](/abs.png)"), report);
    }
}
