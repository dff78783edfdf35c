package io.hybridconnector.fairnessmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.Fairness;

/** Each heavy kind's request, as the samples WAR serves it. */
class HeavyKindTest {

    @Test
    void eachKindAsksItsServletForItsDuration() {
        assertEquals("/samples/compute?ms=0.5", HeavyKind.CPU.scenario(0.5, 16).path());
        assertEquals("/samples/spin?ms=2", HeavyKind.WALL.scenario(2, 16).path());
        assertEquals("/samples/block?ms=200", HeavyKind.SLEEP.scenario(200, 1).path());
        assertEquals("/samples/sometimes?percent=30&ms=30", HeavyKind.SOMETIMES.scenario(0, 4).path());
        Fairness.Scenario download = HeavyKind.DOWNLOAD.scenario(0, 2);
        assertEquals("/samples/size?kb=10240", download.path());
        assertEquals(10L * 1024 * 1024, download.expectedBytes());
        assertNull(download.upload());
        assertEquals("/samples/upload", HeavyKind.UPLOAD.scenario(5, 8).path());
    }

    @Test
    void scenarioNamesSayHowManyDoWhatForHowLong() {
        assertEquals("16 computing 2 ms (CPU time)", HeavyKind.CPU.scenario(2, 16).name());
        assertEquals("8 sleeping 0.5 ms", HeavyKind.SLEEP.scenario(0.5, 8).name());
        assertEquals("4 computing 30 ms 3 times in 10", HeavyKind.SOMETIMES.scenario(0, 4).name());
        assertEquals(16, HeavyKind.WALL.scenario(2, 16).connections());
    }

    @Test
    void aSlowUploadPausesOncePerMillisecondUpToTenTimes() {
        CellSpec.Upload half = HeavyKind.upload(0.5);
        assertEquals(2, half.pieces());
        assertEquals(Duration.ofMillis(0).plusNanos(500_000), half.pause());
        CellSpec.Upload five = HeavyKind.upload(5);
        assertEquals(6, five.pieces());
        assertEquals(Duration.ofMillis(1), five.pause());
        CellSpec.Upload long200 = HeavyKind.upload(200);
        assertEquals(HeavyKind.MAX_UPLOAD_PAUSES + 1, long200.pieces());
        assertEquals(Duration.ofMillis(20), long200.pause());
        assertEquals(HeavyKind.UPLOAD_BYTES, five.bodyBytes());
        assertEquals(five, HeavyKind.UPLOAD.scenario(5, 8).upload());
    }

    @Test
    void cpuBoundKindsShareTheCoresTheOthersLastTheirDuration() {
        assertEquals(32, HeavyKind.CPU.cycleMillis(2, 16, 1), 1e-9);
        assertEquals(16, HeavyKind.CPU.cycleMillis(2, 16, 2), 1e-9);
        assertEquals(2, HeavyKind.CPU.cycleMillis(2, 1, 1), 1e-9);
        assertEquals(2, HeavyKind.SLEEP.cycleMillis(2, 16, 1), 1e-9);
        assertEquals(5, HeavyKind.UPLOAD.cycleMillis(5, 8, 1), 1e-9);
        assertEquals(1, HeavyKind.UPLOAD.cycleMillis(0.5, 8, 1), 1e-9);
    }

    @Test
    void kindsAreNamedByTheirId() {
        for (HeavyKind k : HeavyKind.values()) {
            assertEquals(k, HeavyKind.byId(k.id()));
        }
        assertThrows(IllegalArgumentException.class, () -> HeavyKind.byId("compute"));
        assertEquals("0.5", HeavyKind.millis(0.5));
        assertEquals("200", HeavyKind.millis(200.0));
    }
}
