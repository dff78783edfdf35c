package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToDoubleFunction;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The Fig 3 pictures: one line per connector against the number of users. Main thread. */
final class Plots {

    private Plots() {
    }

    /** Writes {@code file} (PNG) with one series per connector of {@code value} against users. */
    static void write(List<SweepPoint> points, String title, String yLabel, ToDoubleFunction<SweepPoint> value,
                      Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(500).title(title).xAxisTitle("Emulated users")
                .yAxisTitle(yLabel).build();
        chart.getStyler().setMarkerSize(7);
        for (ConnectorChoice c : ConnectorChoice.values()) {
            List<SweepPoint> mine = points.stream().filter(p -> p.connector() == c).toList();
            if (mine.isEmpty()) {
                continue;
            }
            double[] x = mine.stream().mapToDouble(SweepPoint::users).toArray();
            double[] y = mine.stream().mapToDouble(value).toArray();
            chart.addSeries(c == ConnectorChoice.STOCK ? "stock NIO (Http11NioProtocol)"
                    : "hybrid (HybridHttp11Protocol)", x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        String name = file.getFileName().toString();
        BitmapEncoder.saveBitmap(chart, file.getParent().resolve(name.replaceAll("\\.png$", "")).toString(),
                BitmapEncoder.BitmapFormat.PNG);
    }
}
