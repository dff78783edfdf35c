package io.hybridconnector.reliability.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.plot.Charts;
import io.hybridconnector.reliability.Resource;
import io.hybridconnector.reliability.Sample;
import io.hybridconnector.reliability.Side;

/**
 * A long run's resources as pictures: one PNG per {@link Resource}, stock NIO's line and ours in the same chart against
 * seconds since the start, with the run's events (e.g. where the load stopped) as vertical lines. A table gives five
 * points of a series; a chart shows whether the line between them is flat, creeping or saw-toothed. Drawn by the
 * harness's {@link Charts}. Stateless.
 */
public final class ResourceCharts {

    private ResourceCharts() {
    }

    /**
     * Writes {@code PREFIX-RESOURCE.png} into {@code dir} for every resource.
     *
     * @param title  what the run was, at the start of each chart's title
     * @param series each side's samples
     * @param events label by seconds since the start
     * @return the file names written, by resource, in {@link Resource} order
     */
    public static Map<Resource, String> write(Path dir, String prefix, String title, Map<Side, List<Sample>> series,
            Map<String, Double> events) throws IOException {
        Files.createDirectories(dir);
        Map<Resource, String> files = new LinkedHashMap<>();
        for (Resource r : Resource.values()) {
            Map<String, double[][]> lines = new LinkedHashMap<>();
            for (Side side : Side.values()) {
                List<Sample> samples = series.get(side);
                double[] x = new double[samples.size()];
                double[] y = new double[samples.size()];
                for (int i = 0; i < x.length; i++) {
                    x[i] = samples.get(i).seconds();
                    y[i] = r.of(samples.get(i).snapshot());
                }
                lines.put(side.label(), new double[][] { x, y });
            }
            String file = prefix + "-" + r.slug() + ".png";
            Charts.timeSeries(dir.resolve(file), title + ": " + r.description(), r.unit(), lines, events);
            files.put(r, file);
        }
        return files;
    }
}
