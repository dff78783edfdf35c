package io.hybridconnector.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FixedBodiesTest {

    @Test
    void aSizeIsMadeOnceAndReused() {
        FixedBodies bodies = new FixedBodies();
        byte[] first = bodies.of(102_400);
        assertEquals(102_400, first.length);
        assertSame(first, bodies.of(102_400));
        for (byte b : first) {
            assertTrue(Character.isLetterOrDigit(b));
        }
    }

    @Test
    void sizesBeyondTheBoundAreMadeFreshAndNotKept() {
        FixedBodies bodies = new FixedBodies();
        for (int i = 1; i <= FixedBodies.MAX_SIZES; i++) {
            bodies.of(i);
        }
        byte[] extra = bodies.of(FixedBodies.MAX_SIZES + 1);
        assertEquals(FixedBodies.MAX_SIZES + 1, extra.length);
        assertNotSame(extra, bodies.of(FixedBodies.MAX_SIZES + 1));
        assertEquals(FixedBodies.MAX_SIZES, bodies.kept());
        assertSame(bodies.of(7), bodies.of(7));
    }
}
