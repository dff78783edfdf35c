package io.hybridconnector.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/** The hold's state machine, driven by hand: owner on one thread, detector on another, at chosen moments. */
class OutputHoldTest {

    private static final long DUE = OutputHold.HOLD_NANOS;

    @Test
    void anOwnerThatComesBackInTimeKeepsItsBytes() {
        AtomicInteger flushes = new AtomicInteger();
        OutputHold hold = new OutputHold(flushes::incrementAndGet);
        assertTrue(hold.hold(0), "the first hold is listed");
        assertEquals(DUE - 10, hold.lookAt(10), "not due yet: stays listed");
        assertFalse(hold.hold(20), "held again while listed: not listed twice");
        assertEquals(OutputHold.NOT_FLUSHED, hold.reclaim());
        assertEquals(-1, hold.lookAt(DUE * 10), "taken back: leaves the list");
        assertEquals(0, flushes.get());
        assertTrue(hold.hold(DUE * 10), "unlisted: the next hold lists it again");
    }

    @Test
    void theDetectorWritesForAWaitingOwnerOnceAndTheOwnerLearnsIt() throws Exception {
        AtomicInteger flushes = new AtomicInteger();
        OutputHold hold = new OutputHold(flushes::incrementAndGet);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        AtomicInteger outcome = new AtomicInteger(-1);
        Thread owner = new Thread(() -> {
            hold.hold(0);
            held.countDown();
            try {
                wake.await(); // the servlet's sleep
            } catch (InterruptedException e) {
                return;
            }
            outcome.set(hold.reclaim());
        });
        owner.start();
        held.await();
        while (owner.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        assertEquals(-1, hold.lookAt(DUE), "due: written and unlisted");
        assertEquals(-1, hold.lookAt(DUE * 2), "written once only");
        wake.countDown();
        owner.join(5000);
        assertEquals(1, flushes.get());
        assertEquals(OutputHold.FLUSHED_WHILE_WAITING, outcome.get());
        assertEquals(OutputHold.NOT_FLUSHED, hold.reclaim(), "nothing more to take back");
    }

    @Test
    void aRunningOwnerIsWrittenForButNotTakenForAPause() {
        AtomicInteger flushes = new AtomicInteger();
        OutputHold hold = new OutputHold(flushes::incrementAndGet);
        hold.hold(0); // this thread is the owner, RUNNABLE as the detector looks
        assertEquals(-1, hold.lookAt(DUE));
        assertEquals(1, flushes.get());
        assertEquals(OutputHold.FLUSHED, hold.reclaim());
    }

    @Test
    void anOwnerThatComesBackDuringTheWriteWaitsForIt() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicReference<String> order = new AtomicReference<>("");
        OutputHold hold = new OutputHold(() -> {
            writing.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            order.accumulateAndGet("write ", String::concat);
        });
        hold.hold(0);
        Thread detector = new Thread(() -> hold.lookAt(DUE));
        detector.start();
        assertTrue(writing.await(5, TimeUnit.SECONDS));
        Thread owner = new Thread(() -> {
            hold.reclaim();
            order.accumulateAndGet("owner ", String::concat);
        });
        owner.start();
        Thread.sleep(50);
        assertEquals("", order.get(), "the owner went on while the detector was writing");
        finish.countDown();
        owner.join(5000);
        detector.join(5000);
        assertEquals("write owner ", order.get());
    }
}
