package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import io.hybridconnector.loop.HandOffPolicy.Activity;
import io.hybridconnector.loop.HandOffPolicy.Decision;
import io.hybridconnector.loop.HandOffPolicy.Moment;

import org.junit.jupiter.api.Test;

/** Every rule of the policy, one assertion each, as the detector and the leader ask. */
class HandOffPolicyTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final HandOffPolicy policy = new HandOffPolicy(5);

    @Test
    void theLeaderMovesBeforeALongClassRunsAndBeforeWaitingForItsSocket() {
        assertEquals(Decision.PREDICTED, policy.decide(Moment.LONG_CLASS_STARTS, 0, Activity.RUNNING, false));
        assertEquals(Decision.SOCKET_WAIT, policy.decide(Moment.SOCKET_WAIT, 0, Activity.RUNNING, false));
    }

    @Test
    void aRunParkedInJavaMovesAtTheFirstLook() {
        assertEquals(Decision.BLOCKED, policy.decide(Moment.DETECTOR_TICK, 0, Activity.WAITING_IN_JAVA, false));
    }

    @Test
    void aRunInTheKernelMovesOnlyOnceItReachedTheBudget() {
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 4 * MS, Activity.WAITING_IN_KERNEL, true));
        assertEquals(Decision.BLOCKED, policy.decide(Moment.DETECTOR_TICK, 5 * MS, Activity.WAITING_IN_KERNEL, false));
    }

    @Test
    void theBudgetIsSharedWithTheConnectionsWaitingBehindARunButNeverUnderAMillisecond() {
        assertEquals(5 * MS, policy.limitNanos(0));
        assertEquals(2500_000, policy.limitNanos(1));
        assertEquals(MS, policy.limitNanos(4));
        assertEquals(MS, policy.limitNanos(16));
        // Sixteen connections behind a 2 ms computing run: it moves at its share, not at the whole budget.
        long limit = policy.limitNanos(16);
        assertEquals(Decision.COMPUTED, policy.decide(Moment.DETECTOR_TICK, 2 * MS, limit, Activity.RUNNING, true));
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, MS / 2, limit, Activity.RUNNING, true));
        // A run only waiting for a CPU moves at the whole budget, whatever waits behind it.
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 2 * MS, limit, Activity.STARVED, true));
        assertEquals(Decision.STARVED, policy.decide(Moment.DETECTOR_TICK, 5 * MS, limit, Activity.STARVED, true));
    }

    @Test
    void aComputingRunMovesAtTheBudgetOnlyWhenOthersMayWait() {
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 4 * MS, Activity.RUNNING, true));
        assertEquals(Decision.COMPUTED, policy.decide(Moment.DETECTOR_TICK, 5 * MS, Activity.RUNNING, true));
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 500 * MS, Activity.RUNNING, false));
    }

    @Test
    void aRunThatWaitedForACpuMovesAsStarvedOnlyWhenOthersMayWait() {
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 4 * MS, Activity.STARVED, true));
        assertEquals(Decision.STARVED, policy.decide(Moment.DETECTOR_TICK, 5 * MS, Activity.STARVED, true));
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 500 * MS, Activity.STARVED, false));
    }

    @Test
    void aRunWhoseOwnWriteWaitsForTheLoopMovesAtItsLimitWhateverItDoesAndWhoeverWaits() {
        long limit = policy.limitNanos(0);
        for (Activity activity : new Activity[] { Activity.RUNNING, Activity.STARVED, Activity.JUST_SEEN,
                Activity.WAITING_IN_KERNEL }) {
            assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 4 * MS, limit, activity, false, true),
                    activity.name());
            assertEquals(Decision.SOCKET_WAIT, policy.decide(Moment.DETECTOR_TICK, 5 * MS, limit, activity, false,
                    true), activity.name());
        }
        assertEquals(Decision.BLOCKED, policy.decide(Moment.DETECTOR_TICK, 0, limit, Activity.WAITING_IN_JAVA, false,
                true));
    }

    @Test
    void aRunSeenOnlyJustNowIsLookedAtAgainBeforeItMoves() {
        assertEquals(Decision.STAY, policy.decide(Moment.DETECTOR_TICK, 50 * MS, Activity.JUST_SEEN, true));
    }
}
