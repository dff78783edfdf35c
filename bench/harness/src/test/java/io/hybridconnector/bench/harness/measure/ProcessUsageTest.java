package io.hybridconnector.bench.harness.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** Context switches are differenced per thread, so threads that come and go between samples cannot make them negative. */
class ProcessUsageTest {

    @Test
    void threadsThatStartOrExitBetweenSamplesCountOnlyWhatTheyDidInBetween() {
        Map<String, Long> before = Map.of("1/1", 100L, "1/2", 5_000L);
        // thread 2 exited (its 5,000 switches must not be subtracted), thread 3 started with 40
        Map<String, Long> after = Map.of("1/1", 130L, "1/3", 40L);
        assertEquals(70, ProcessUsage.switchesBetween(before, after));
        assertEquals(-1, ProcessUsage.switchesBetween(null, after));
    }

    @Test
    void aThreadThatSleepsAndExitsIsCountedAndNothingGoesNegative() throws Exception {
        long me = ProcessHandle.current().pid();
        ProcessUsage.Sample a = ProcessUsage.of(me);
        Thread t = new Thread(() -> {
            for (int i = 0; i < 20; i++) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        t.start();
        Thread.sleep(10);
        ProcessUsage.Sample middle = ProcessUsage.of(me);
        t.join();
        ProcessUsage.Sample b = ProcessUsage.of(me);
        assertTrue(ProcessUsage.between(a, middle).contextSwitchesPerSecond() > 0, "the sleeping thread switched");
        assertTrue(ProcessUsage.between(middle, b).contextSwitchesPerSecond() >= 0, "an exited thread made it negative");
    }
}
