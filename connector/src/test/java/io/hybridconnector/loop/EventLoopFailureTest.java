package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.loop.LoopFixture.Connection;

import org.junit.jupiter.api.Test;

/**
 * One failure must cost one connection, not a loop: a task or a connection's run that throws is logged, the
 * connection closed, and the loop's leader goes on with the others (issue 16; before, the leader thread died and
 * every connection of its loop hung).
 */
class EventLoopFailureTest {

    @Test
    void aTaskThatThrowsDoesNotEndTheLoop() throws Exception {
        try (LoopFixture f = new LoopFixture(5, -1)) {
            CountDownLatch thrown = new CountDownLatch(1);
            f.loop.submit(() -> {
                thrown.countDown();
                throw new java.nio.channels.CancelledKeyException();
            });
            assertTrue(thrown.await(5, TimeUnit.SECONDS));
            Connection after = f.connect("after", () -> { });
            after.ready();
            assertTrue(after.ran.await(5, TimeUnit.SECONDS), "the loop stopped after a failed task: " + f.loop);
        }
    }

    @Test
    void aConnectionThatThrowsIsClosedAndTheOthersGoOn() throws Exception {
        try (LoopFixture f = new LoopFixture(5, -1)) {
            Connection failing = f.connect("failing", () -> {
                throw new IllegalStateException("a bug in one connection's run");
            });
            Connection other = f.connect("other", () -> { });
            failing.ready();
            assertTrue(failing.ran.await(5, TimeUnit.SECONDS));
            other.ready();
            assertTrue(other.ran.await(5, TimeUnit.SECONDS), "the loop stopped after a failed run: " + f.loop);
            assertFalse(failing.pipe.source().isOpen(), "the failing connection was not closed");
        }
    }
}
