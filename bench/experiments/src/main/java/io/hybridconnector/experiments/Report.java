package io.hybridconnector.experiments;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * report.md, results.csv and the PNG plots from the rows of a run: each table and figure of the papers next to what
 * this machine measured. Rows that a profile did not produce leave their table out with a note. Main thread.
 */
final class Report {

    private Report() {
    }

    static void write(List<Row> rows, Map<String, String> meta, Path dir, PrintStream out) throws IOException {
        Files.createDirectories(dir);
        Row.writeCsv(dir.resolve("results.csv"), rows);
        ReportSection.Run run = new ReportSection.Run(rows, new Agg(rows), dir, new StringBuilder());
        new ReportPreamble(run, meta).write();
        new ReportClaims(run).write();
        new ReportWriteSpin(run).write();
        new ReportAgreement(run).write();
        new ReportMatrix(run).write();
        new ReportConnectorOnly(run).write();
        new ReportFairness(run).write();
        new ReportTable2(run).write();
        new ReportTable3(run).write();
        new ReportTable5(run).write();
        new ReportTable6(run).write();
        new ReportFig4(run).write();
        new ReportFig6(run).write();
        new ReportFig12(run).write();
        new ReportFig14(run).write();
        new ReportFig16(run).write();
        new ReportFig17(run).write();
        new ReportThreads004(run).write();
        new ReportAppendix(run).write();
        Files.writeString(dir.resolve("report.md"), run.md().toString());
        out.println();
        out.println(run.md());
        out.println("Report: " + dir.resolve("report.md") + " (CSV: results.csv, plots: *.png)");
    }
}
