package io.hybridconnector.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RandomBodyTest {

    @Test
    void sizesOfThePapers() {
        assertEquals(102, RandomBody.parseKb("0.1"));
        assertEquals(10_240, RandomBody.parseKb("10"));
        assertEquals(102_400, RandomBody.parseKb("100"));
    }

    @Test
    void badSizesAreRefusedWithAReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RandomBody.parseKb(null)).getMessage()
                .contains("missing"));
        assertThrows(IllegalArgumentException.class, () -> RandomBody.parseKb("abc"));
        assertThrows(IllegalArgumentException.class, () -> RandomBody.parseKb("0"));
        assertThrows(IllegalArgumentException.class, () -> RandomBody.parseKb("-1"));
        assertThrows(IllegalArgumentException.class, () -> RandomBody.parseKb("NaN"));
        assertThrows(IllegalArgumentException.class, () -> RandomBody.parseKb("1e9"));
    }

    @Test
    void bodyIsAlphanumericAndRandom() {
        byte[] a = RandomBody.generate(10_240);
        byte[] b = RandomBody.generate(10_240);
        for (byte x : a) {
            assertTrue(Character.isLetterOrDigit(x));
        }
        assertTrue(!java.util.Arrays.equals(a, b));
    }

    @Test
    void everyLetterAndDigitIsAboutEquallyLikely() {
        int[] counts = new int[128];
        byte[] body = RandomBody.generate(620_000);
        for (byte x : body) {
            counts[x]++;
        }
        int seen = 0;
        for (int c = 0; c < 128; c++) {
            if (counts[c] > 0) {
                seen++;
                // 10,000 expected per character; a count outside 9,400..10,600 is 6 standard deviations out.
                assertTrue(counts[c] > 9_400 && counts[c] < 10_600, (char) c + ": " + counts[c]);
            }
        }
        assertEquals(62, seen);
    }
}
