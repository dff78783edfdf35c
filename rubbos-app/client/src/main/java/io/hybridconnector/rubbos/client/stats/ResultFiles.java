package io.hybridconnector.rubbos.client.stats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Writes one run's per-state table as CSV and as markdown. Any thread; no state. */
public final class ResultFiles {

    private ResultFiles() {
    }

    public static void writeCsv(RunResult r, Path file) throws IOException {
        StringBuilder csv = new StringBuilder("state,count,errors,percent,mean_ms,p50_ms,p90_ms,p99_ms,max_ms\n");
        for (RunResult.Row row : r.rows()) {
            csv.append(String.format(Locale.ROOT, "%s,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f%n", row.state(),
                    row.count(), row.errors(), row.percent(), row.meanMs(), row.p50Ms(), row.p90Ms(), row.p99Ms(),
                    row.maxMs()));
        }
        csv.append(String.format(Locale.ROOT, "TOTAL,%d,%d,100.00,%.2f,%.2f,%.2f,%.2f,%.2f%n", r.interactions(),
                r.errors(), r.meanMs(), r.p50Ms(), r.p90Ms(), r.p99Ms(), r.maxMs()));
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, csv);
    }

    /** @return the per-state table in markdown, with a totals line above it */
    public static String markdown(RunResult r) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%d users, %.0f s measured: %.1f interactions/s, %d errors, "
                + "response time mean %.1f ms, p50 %.1f ms, p99 %.1f ms; %d sessions ended, %d missing links%n%n",
                r.users(), r.seconds(), r.throughput(), r.errors(), r.meanMs(), r.p50Ms(), r.p99Ms(), r.sessions(),
                r.noLinks()));
        md.append("| State | Count | Errors | % | Mean ms | p50 ms | p90 ms | p99 ms | Max ms |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult.Row row : r.rows()) {
            if (row.count() + row.errors() == 0) {
                continue;
            }
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
                    row.state(), row.count(), row.errors(), row.percent(), row.meanMs(), row.p50Ms(), row.p90Ms(),
                    row.p99Ms(), row.maxMs()));
        }
        return md.toString();
    }
}
