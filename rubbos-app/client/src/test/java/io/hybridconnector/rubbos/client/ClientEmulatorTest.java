package io.hybridconnector.rubbos.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Author sessions are exactly the configured share of the users (FACTS.md 3.1, 3.8: 10%). */
class ClientEmulatorTest {

    @Test
    void exactlyTheShareOfUsersAreAuthorsWhateverTheSeed() {
        for (int users : new int[] {1, 32, 200, 300, 1000, 2000}) {
            for (long seed : new long[] {7, 99, 42}) {
                // seed 7 is the runner's: a coin per user gave 13 authors of 200 and 22 of 300
                assertEquals(Math.round(users * 0.10), count(ClientEmulator.authors(users, 0.10, new Random(seed))),
                        users + " users, seed " + seed);
            }
        }
        assertEquals(0, count(ClientEmulator.authors(200, 0, new Random(7))));
        assertEquals(200, count(ClientEmulator.authors(200, 1, new Random(7))));
    }

    @Test
    void theAuthorsAreChosenAtRandom() {
        boolean[] a = ClientEmulator.authors(1000, 0.10, new Random(7));
        boolean[] b = ClientEmulator.authors(1000, 0.10, new Random(8));
        assertNotEquals(Arrays.toString(a), Arrays.toString(b));
        // not simply the first or the last hundred
        assertNotEquals(100, count(Arrays.copyOf(a, 100)));
        assertNotEquals(0, count(Arrays.copyOf(a, 500)));
    }

    private static long count(boolean[] flags) {
        long n = 0;
        for (boolean f : flags) {
            n += f ? 1 : 0;
        }
        return n;
    }
}
