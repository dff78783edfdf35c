package io.hybridconnector.reliability.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleScenarioTest {

    @Test
    void bothConnectorsSetsMustFitTheOpenFilesLimit() {
        // the full profile's 10,000 per connector under this machine's default limit of 20,000
        assertEquals(9_000, IdleScenario.fitToOpenFilesLimit(10_000, 20_000));
        assertEquals(10_000, IdleScenario.fitToOpenFilesLimit(10_000, 65_536));
        assertEquals(0, IdleScenario.fitToOpenFilesLimit(10_000, 1_024));
    }

    @Test
    void readsThisProcesssLimit() {
        assertTrue(IdleScenario.openFilesLimit() >= 1_024, "a Linux process may open at least 1024 files");
    }
}
