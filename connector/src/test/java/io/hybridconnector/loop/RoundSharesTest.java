package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A loop shares its rounds per connection, not per request: a connection whose runs hold the loop longer than its
 * share of the round is served less often while others are ready beside it, and as often as it likes alone. Real
 * selector and pipes, no HTTP; the runs stay inline (0.5 ms is under the least limit, so no hand-off interferes).
 */
class RoundSharesTest {

    private static final int LIGHT = 20;
    private static final int REQUESTS = 100;
    private static final long HEAVY_RUN_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    /**
     * 20 light connections and one whose runs take 0.5 ms, all ready every round: the round's share is 5 ms / 21 =
     * 238 us, so the heavy one sits out a round after each of its runs. Served once per round, as before, it ran as
     * many requests as each light connection (100).
     */
    @Test
    void aConnectionWhoseRunsExceedItsShareIsServedLessOftenBesideOthers() throws Exception {
        try (LoopFixture fixture = new LoopFixture(5, -1)) {
            CountDownLatch lightDone = new CountDownLatch(LIGHT);
            List<RepeatingChannel> lights = new ArrayList<>();
            for (int i = 0; i < LIGHT; i++) {
                lights.add(new RepeatingChannel("light-" + i, 0, REQUESTS, lightDone));
            }
            RepeatingChannel heavy = new RepeatingChannel("heavy", HEAVY_RUN_NANOS, Integer.MAX_VALUE, null);
            connect(fixture, heavy);
            for (RepeatingChannel light : lights) {
                connect(fixture, light);
            }
            // every connection's first request in one round
            LoopFixture.holdTheLoopWhile(fixture.loop, () -> {
                heavy.readyQuietly();
                lights.forEach(RepeatingChannel::readyQuietly);
            });
            assertTrue(lightDone.await(20, TimeUnit.SECONDS), "the light connections were served");
            heavy.stop = true;
            int heavyRuns = heavy.runs.get();
            assertTrue(heavyRuns <= REQUESTS * 3 / 4,
                    "the heavy connection ran " + heavyRuns + " requests while each light one ran " + REQUESTS);
            assertTrue(heavyRuns >= REQUESTS / 4, "the heavy connection was not starved: " + heavyRuns);
            assertTrue(fixture.counters.getRoundsSatOut() > 0, "rounds sat out are counted");
        }
    }

    /** Alone in its rounds, the same connection owes nothing: it is served every round. */
    @Test
    void aConnectionAloneInItsRoundsIsServedEveryRound() throws Exception {
        try (LoopFixture fixture = new LoopFixture(5, -1)) {
            CountDownLatch done = new CountDownLatch(1);
            RepeatingChannel heavy = new RepeatingChannel("heavy", HEAVY_RUN_NANOS, REQUESTS, done);
            connect(fixture, heavy);
            heavy.readyQuietly();
            assertTrue(done.await(20, TimeUnit.SECONDS), "served");
            assertEquals(0, fixture.counters.getRoundsSatOut(), "rounds sat out");
        }
    }

    private static void connect(LoopFixture fixture, RepeatingChannel c) throws InterruptedException {
        c.loop = fixture.loop;
        LoopFixture.register(fixture.loop, c);
    }
}
