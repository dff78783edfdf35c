package io.hybridconnector.experiments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** PNG line and bar charts with XChart (headless). Stateless; any thread. */
final class Plots {

    private Plots() {
    }

    /** Lines: per series, x and y arrays of equal length (NaN points are left out). */
    static void lines(Path file, String title, String xTitle, String yTitle, boolean logX,
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

    /** Grouped bars: categories on x, one bar per series in each (NaN drawn as 0). */
    static void bars(Path file, String title, String yTitle, List<String> categories,
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

    private static String strip(Path file) {
        String s = file.toString();
        return s.endsWith(".png") ? s.substring(0, s.length() - 4) : s;
    }
}
