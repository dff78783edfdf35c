package io.hybridconnector.bench.harness.plot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The benchmarks' PNG charts, drawn with XChart (headless: no X server): the experiments' lines and bars, the RUBBoS
 * sweep's lines and the reliability soak's time series. One class so that every figure is saved the same way.
 * Stateless; any thread.
 */
public final class Charts {

    private Charts() {
    }

    /** Lines: per series, x and y arrays of equal length (NaN points are left out). */
    public static void lines(Path file, String title, String xTitle, String yTitle, boolean logX,
            Map<String, double[][]> series) throws IOException {
        XYChart chart = new XYChartBuilder().width(760).height(460).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        boolean any = false;
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            double[] x = e.getValue()[0];
            double[] y = e.getValue()[1];
            for (int i = 0; i < x.length; i++) {
                if (!Double.isNaN(x[i]) && !Double.isNaN(y[i])) {
                    xs.add(x[i]);
                    ys.add(y[i]);
                }
            }
            if (!xs.isEmpty()) {
                chart.addSeries(e.getKey(), xs, ys);
                any = true;
            }
        }
        if (any) {
            BitmapEncoder.saveBitmap(chart, strip(file), BitmapEncoder.BitmapFormat.PNG);
        }
    }

    /**
     * A time series: lines with small markers against seconds, the y axis from 0 (a flat line must look flat, not
     * zoomed into noise), and a vertical line with a label at each event (e.g. where the load stopped), so a reader
     * sees which part of the run each stretch of line belongs to.
     *
     * @param series per series, x (seconds) and y arrays of equal length
     * @param events label by x (seconds)
     */
    public static void timeSeries(Path file, String title, String yTitle, Map<String, double[][]> series,
            Map<String, Double> events) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(460).title(title).xAxisTitle("seconds since the start")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSW);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setMarkerSize(4);
        double top = 0;
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            chart.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
            for (double y : e.getValue()[1]) {
                top = Math.max(top, y);
            }
        }
        // head room above the highest point for the events' labels
        chart.getStyler().setYAxisMax(top > 0 ? top * 1.15 : 1.0);
        for (Map.Entry<String, Double> event : events.entrySet()) {
            chart.addAnnotation(new AnnotationLine(event.getValue(), true, false));
            chart.addAnnotation(new AnnotationText(event.getKey(), event.getValue(), top > 0 ? top * 1.08 : 0.9,
                    false));
        }
        BitmapEncoder.saveBitmap(chart, strip(file), BitmapEncoder.BitmapFormat.PNG);
    }

    /** Grouped bars: categories on x, one bar per series in each (NaN drawn as 0). */
    public static void bars(Path file, String title, String yTitle, List<String> categories,
            Map<String, List<Double>> series) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(760).height(460).title(title).yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        boolean any = false;
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            List<Double> ys = e.getValue().stream().map(v -> Double.isNaN(v) ? 0.0 : v).toList();
            if (ys.stream().anyMatch(v -> v != 0)) {
                chart.addSeries(e.getKey(), categories, ys);
                any = true;
            }
        }
        if (any) {
            BitmapEncoder.saveBitmap(chart, strip(file), BitmapEncoder.BitmapFormat.PNG);
        }
    }

    /**
     * The RUBBoS Fig 3 look: one line per series with round markers against a linear x axis, the legend inside, the
     * y axis scaled to the data (as the paper draws it).
     */
    public static void sweep(Path file, String title, String xTitle, String yTitle, Map<String, double[][]> series)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(500).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setMarkerSize(7);
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            chart.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
        }
        BitmapEncoder.saveBitmap(chart, strip(file), BitmapEncoder.BitmapFormat.PNG);
    }

    private static String strip(Path file) {
        String s = file.toString();
        return s.endsWith(".png") ? s.substring(0, s.length() - 4) : s;
    }
}
