package io.hybridconnector.bench.harness.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The heat maps' colours, and that a figure is written. */
class ChartsTest {

    @Test
    void aCellIsGreenWhenBetterYellowWhenWorseButWithinAndRedWhenItMisses() {
        Color better = Charts.cellColour(0.5, false, true); // half the latency
        assertTrue(better.getGreen() > better.getRed(), better.toString());
        Color worseWithin = Charts.cellColour(1.1, false, true);
        assertEquals(Charts.cellColour(0.97, false, false), worseWithin, "worse but within: one colour");
        Color miss = Charts.cellColour(0.5, true, false); // half the throughput, bound missed
        assertTrue(miss.getRed() > 2 * miss.getGreen(), miss.toString());
        assertNotEquals(Charts.cellColour(0.8, true, false), miss, "deeper red the further off");
        assertEquals(Charts.cellColour(Double.NaN, false, false), Charts.cellColour(Double.NaN, true, true));
    }

    @Test
    void heatMapsAreWrittenSideBySide(@TempDir Path dir) throws Exception {
        double[][] values = { { 1.5, Double.NaN }, { 0.8, 1.0 } };
        boolean[][] misses = { { false, false }, { true, false } };
        Charts.HeatMap p = new Charts.HeatMap("ratio", List.of("1", "2"), List.of("8", "4"), values, misses, false);
        Path file = dir.resolve("map.png");
        Charts.heatMaps(file, "two panels", "x", "y", List.of(p, p));
        BufferedImage image = ImageIO.read(file.toFile());
        assertTrue(image.getWidth() > 2 * (56 + 2 * 66) && image.getHeight() > 100, image.getWidth() + "x"
                + image.getHeight());
    }
}
