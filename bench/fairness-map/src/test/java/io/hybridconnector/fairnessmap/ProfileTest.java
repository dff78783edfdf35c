package io.hybridconnector.fairnessmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** How long each cell runs, and the whole map. */
class ProfileTest {

    @Test
    void theQuickProfilesCellsAllRunItsOwnWindows() {
        MapOptions o = MapOptions.parse(new String[0]);
        for (Cell c : o.cells()) {
            Profile.Windows w = o.windows(c);
            assertEquals(Duration.ofMillis(500), w.warmup(), c.label());
            assertEquals(Duration.ofMillis(1500), w.window(), c.label());
            assertEquals(Profile.MIN_TIMEOUT, w.timeout(), c.label());
        }
    }

    @Test
    void theQuickProfileFitsInTenMinutesAndTheFullOneRunsEveryCell() {
        assertTrue(MapOptions.parse(new String[0]).estimate().compareTo(Duration.ofMinutes(10)) < 0);
        MapOptions full = MapOptions.parse(new String[] { "--profile", "full" });
        assertEquals(408, full.cells().size());
        assertTrue(full.estimate().compareTo(Duration.ofHours(3)) > 0, full.estimate().toString());
    }

    @Test
    void longHeavyRequestsGetLongerWarmUpsWindowsAndTimeoutsUpToALimit() {
        // one connection computing 200 ms: 50 requests take 10 s
        Profile.Windows one = Profile.FULL.windows(new Cell(1, HeavyKind.CPU, 200, 1), null, null);
        assertEquals(Duration.ofMillis(1000), one.warmup());
        assertEquals(Duration.ofSeconds(10), one.window());
        // 32 computing 200 ms on one core: a request takes 6.4 s with only them running
        Profile.Windows many = Profile.FULL.windows(new Cell(1, HeavyKind.CPU, 200, 32), null, null);
        assertEquals(Profile.MAX_WARMUP, many.warmup());
        assertEquals(Duration.ofSeconds(10), many.window());
        assertEquals(Duration.ofMillis(4 * 6400 + 5000), many.timeout());
        // short ones keep the profile's
        Profile.Windows shortOnes = Profile.FULL.windows(new Cell(2, HeavyKind.SLEEP, 1, 32), null, null);
        assertEquals(Duration.ofSeconds(1), shortOnes.warmup());
        assertEquals(Duration.ofSeconds(5), shortOnes.window());
        // the longest window is the profile's (quick: its own 1.5 s), or the one asked for
        assertEquals(Duration.ofMillis(1500), Profile.QUICK.windows(new Cell(1, HeavyKind.SLEEP, 200, 1), null,
                null).window());
        assertEquals(Duration.ofSeconds(3), Profile.QUICK.windows(new Cell(1, HeavyKind.SLEEP, 200, 1), null,
                Duration.ofSeconds(3)).window());
    }

    @Test
    void optionsNarrowTheMap() {
        MapOptions o = MapOptions.parse(new String[] { "--cores", "2", "--kinds", "cpu,upload", "--rounds", "5",
                "--window", "3" });
        assertEquals(6, o.cells().size());
        assertEquals(5, o.rounds());
        assertEquals(Duration.ofSeconds(3), o.windows(o.cells().get(0)).window());
    }
}
