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
}
