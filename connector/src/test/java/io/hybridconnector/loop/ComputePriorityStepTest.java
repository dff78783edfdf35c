package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The step {@link ComputeShare} takes above {@code computingRequestPriority} while computing requests wait for lanes,
 * applied to the test's own thread: never above normal priority. Runs in a JVM without options (by
 * {@code setpriority(2)}) and in one with {@code -XX:ThreadPriorityPolicy=1} (by the JVM): the connector's pom.
 */
class ComputePriorityStepTest {

    @Test
    void oneStepAboveTheDefaultIsNormalPriorityAndChangesNothing() {
        ComputePriority priority = new ComputePriority(ComputePriority.DEFAULT);
        int before = KernelThreadState.currentNice();
        assertFalse(priority.lower(ComputeShare.STEP_ABOVE), "nothing to restore after the request");
        assertEquals(before, KernelThreadState.currentNice());
        assertEquals(0, priority.getLowered());
    }

    @Test
    void oneStepAboveALowerPriorityIsOneNiceValueHigher() {
        ComputePriority priority = new ComputePriority(ComputePriority.DEFAULT - 1); // nice 2
        int before = KernelThreadState.currentNice();
        try {
            assertTrue(priority.lower(ComputeShare.STEP_ABOVE));
            assertEquals(before + 1, KernelThreadState.currentNice());
            assertTrue(priority.lower(0));
            assertEquals(before + 2, KernelThreadState.currentNice());
        } finally {
            priority.restore();
        }
        assertEquals(before, KernelThreadState.currentNice());
    }
}
