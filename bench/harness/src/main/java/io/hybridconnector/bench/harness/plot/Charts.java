package io.hybridconnector.bench.harness.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

import io.hybridconnector.bench.harness.report.Stats;

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
 * sweep's lines and the reliability soak's time series; and the fairness map's heat maps, drawn with Java2D (see
 * {@link #heatMaps}). One class so that every figure is saved the same way. Stateless; any thread.
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

    /**
     * One panel of {@link #heatMaps}: a ratio per cell of a grid, {@code values[row][column]} (NaN: not measured),
     * and which cells miss their bound. {@code lowerIsBetter}: a ratio under 1 is the good side (a latency).
     */
    public record HeatMap(String title, List<String> columns, List<String> rows, double[][] values,
            boolean[][] misses, boolean lowerIsBetter) {
    }

    private static final int CELL_WIDTH = 66;
    private static final int CELL_HEIGHT = 30;
    private static final int ROW_LABELS = 56;
    private static final int PANEL_GAP = 36;
    private static final int MARGIN = 20;
    private static final Color NOT_MEASURED = new Color(0xE6E6E6);
    private static final Color WITHIN_WORSE = new Color(0xFFF2B3);
    private static final Color MISS_BORDER = new Color(0x7A0000);
    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    private static final Font LEGEND_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    private static final List<String> HEAT_MAP_LEGEND = List.of("Each cell: the ratio, ours / the reference.",
            "Green: within the bound and at least as good (deeper: up to 2x better).",
            "Yellow: within the bound, worse. Red with a dark border: misses the bound.", "Grey: not measured.");

    /**
     * Heat maps side by side in one PNG, each cell coloured by its ratio and its bound and labelled with the ratio:
     * green within the bound and at least as good as the reference (deeper the better, up to 2x), yellow within the
     * bound but worse, red with a dark border where the bound is missed, grey where nothing was measured. Drawn with
     * Java2D rather than XChart's heat map, which takes a cell's colour and its label from the one plotted value: a
     * bound that is not a fixed ratio (a latency within max(1.2x, +2 ms) of the reference's) cannot colour such a
     * map, and values beyond its colour range would have to be clipped, label included.
     */
    public static void heatMaps(Path file, String title, String xTitle, String yTitle, List<HeatMap> panels)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        int columns = panels.stream().mapToInt(p -> p.columns().size()).max().orElse(1);
        int rows = panels.stream().mapToInt(p -> p.rows().size()).max().orElse(1);
        int panelWidth = ROW_LABELS + columns * CELL_WIDTH;
        int width = Math.max(2 * MARGIN + panels.size() * panelWidth + (panels.size() - 1) * PANEL_GAP,
                2 * MARGIN + textWidth(title, TITLE_FONT));
        int gridTop = 92;
        int height = gridTop + rows * CELL_HEIGHT + 40 + 16 * HEAT_MAP_LEGEND.size();
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(TITLE_FONT);
            g.drawString(title, MARGIN, 26);
            for (int i = 0; i < panels.size(); i++) {
                drawPanel(g, panels.get(i), MARGIN + i * (panelWidth + PANEL_GAP), gridTop, xTitle, yTitle);
            }
            g.setFont(LEGEND_FONT);
            g.setColor(Color.DARK_GRAY);
            for (int i = 0; i < HEAT_MAP_LEGEND.size(); i++) {
                g.drawString(HEAT_MAP_LEGEND.get(i), MARGIN, height - 12 - 16 * (HEAT_MAP_LEGEND.size() - 1 - i));
            }
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    /** How wide {@code text} is in {@code font}; the legend's widest line at least, so that a figure fits both. */
    private static int textWidth(String text, Font font) {
        Graphics2D g = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
        try {
            int legend = HEAT_MAP_LEGEND.stream().mapToInt(l -> g.getFontMetrics(LEGEND_FONT).stringWidth(l)).max()
                    .orElse(0);
            return Math.max(g.getFontMetrics(font).stringWidth(text), legend);
        } finally {
            g.dispose();
        }
    }

    private static void drawPanel(Graphics2D g, HeatMap p, int left, int top, String xTitle, String yTitle) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(p.title(), left, top - 40);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString(xTitle, left + ROW_LABELS, top - 22);
        g.drawString(yTitle, left, top + p.rows().size() * CELL_HEIGHT + 16);
        int gridLeft = left + ROW_LABELS;
        for (int c = 0; c < p.columns().size(); c++) {
            centred(g, p.columns().get(c), gridLeft + c * CELL_WIDTH, top - 6, CELL_WIDTH);
        }
        for (int r = 0; r < p.rows().size(); r++) {
            int y = top + r * CELL_HEIGHT;
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            g.drawString(p.rows().get(r), left + 4, y + CELL_HEIGHT / 2 + 4);
            for (int c = 0; c < p.columns().size(); c++) {
                drawCell(g, p, r, c, gridLeft + c * CELL_WIDTH, y);
            }
        }
    }

    private static void drawCell(Graphics2D g, HeatMap p, int r, int c, int x, int y) {
        double v = p.values()[r][c];
        boolean miss = p.misses()[r][c];
        g.setColor(cellColour(v, miss, p.lowerIsBetter()));
        g.fillRect(x, y, CELL_WIDTH, CELL_HEIGHT);
        g.setColor(Color.WHITE);
        g.drawRect(x, y, CELL_WIDTH, CELL_HEIGHT);
        if (miss) {
            g.setColor(MISS_BORDER);
            g.setStroke(new BasicStroke(3));
            g.drawRect(x + 2, y + 2, CELL_WIDTH - 4, CELL_HEIGHT - 4);
            g.setStroke(new BasicStroke(1));
        }
        g.setColor(miss ? Color.WHITE : Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, miss ? Font.BOLD : Font.PLAIN, 12));
        centred(g, Double.isNaN(v) ? "" : Stats.format(v) + "x", x, y + CELL_HEIGHT / 2 + 5, CELL_WIDTH);
    }

    /** Green by how much better than 1 (up to 2x), yellow when worse but within the bound, red by how far off. */
    static Color cellColour(double ratio, boolean miss, boolean lowerIsBetter) {
        if (Double.isNaN(ratio)) {
            return NOT_MEASURED;
        }
        double better = Math.log(ratio) / Math.log(2) * (lowerIsBetter ? -1 : 1);
        if (miss) {
            double depth = Math.min(1, Math.abs(better)); // 2x worse or more: the deepest red
            return blend(new Color(0xF08080), new Color(0xB00000), depth);
        }
        if (better < 0) {
            return WITHIN_WORSE;
        }
        return blend(new Color(0xE3F5DA), new Color(0x3D9B3D), Math.min(1, better));
    }

    private static Color blend(Color from, Color to, double t) {
        return new Color((int) Math.round(from.getRed() + (to.getRed() - from.getRed()) * t),
                (int) Math.round(from.getGreen() + (to.getGreen() - from.getGreen()) * t),
                (int) Math.round(from.getBlue() + (to.getBlue() - from.getBlue()) * t));
    }

    private static void centred(Graphics2D g, String text, int x, int baseline, int width) {
        int w = g.getFontMetrics().stringWidth(text);
        g.drawString(text, x + (width - w) / 2, baseline);
    }

    private static String strip(Path file) {
        String s = file.toString();
        return s.endsWith(".png") ? s.substring(0, s.length() - 4) : s;
    }
}
