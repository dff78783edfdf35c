package io.hybridconnector.reliability.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleScenarioTest {

    @Test
    void bothConnectorsSetsMustFitTheOpenFilesLimit() {
        // the full profile's 10,000 per connector under this machine's limit of 20,000: not both at once, one at a time
        assertEquals(9_000, IdleScenario.fitToOpenFilesLimit(10_000, 20_000, 2));
        assertEquals(10_000, IdleScenario.fitToOpenFilesLimit(10_000, 20_000, 1));
        assertEquals(10_000, IdleScenario.fitToOpenFilesLimit(10_000, 65_536, 2));
        assertEquals(0, IdleScenario.fitToOpenFilesLimit(10_000, 1_024, 2));
    }

    @Test
    void readsThisProcesssLimit() {
        assertTrue(IdleScenario.openFilesLimit() >= 1_024, "a Linux process may open at least 1024 files");
    }
}
