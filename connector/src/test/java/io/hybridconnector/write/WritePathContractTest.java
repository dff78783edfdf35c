package io.hybridconnector.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;

/**
 * The write strategies' contract ({@link BlockingWrite}) as {@link ResponseWriter#write} drives it, and the
 * write-behind state machine ({@link WriteBehindFlusher}), on a scripted socket: no threads, no kernel.
 */
class WritePathContractTest {

    private final WriteCounters counters = new WriteCounters();
    private final WriteBehindBuffer behind = new WriteBehindBuffer(WriteBehindMemory.newAllocator(1), 8192, counters);
    /** How many bytes the socket takes per write call now. */
    private int takes;
    /** What the connection was asked, in order. */
    private final List<String> calls = new ArrayList<>();

    private final GatheringByteChannel socket = new PartialSocket(() -> takes, () -> { });

    /** Records every call; a wait for writability lets the socket take everything. */
    private final class Connection implements ResponseWriter.Waiter, WriteBehindFlusher.Connection {
        @Override
        public void awaitWritable() {
            calls.add("awaitWritable");
            takes = Integer.MAX_VALUE;
        }

        @Override
        public void checkStalled(long stalledSinceNanos) {
            calls.add("checkStalled");
            takes = Integer.MAX_VALUE;
        }

        @Override
        public void wrote() {
            calls.add("wrote");
        }

        @Override
        public void contended() {
            calls.add("contended");
        }

        @Override
        public void unlockAndResume() {
            calls.add("unlock");
            lock.unlock();
        }

        @Override
        public void flushed(int ops) {
            calls.add("flushed " + ops);
        }

        @Override
        public void failed(IOException cause) {
            calls.add("failed " + cause.getClass().getSimpleName());
        }
    }

    private final Connection connection = new Connection();
    private final ReentrantLock lock = new ReentrantLock();

    private ResponseWriter writer(WriteStrategy strategy) {
        return new ResponseWriter(socket, strategy, behind, counters, connection);
    }

    private static ByteBuffer bytes(int n) {
        return ByteBuffer.wrap(new byte[n]);
    }

    @Test
    void spinWaitsAfterAQuantumOfWritesThatMovedBytes() throws IOException {
        takes = 1;
        ByteBuffer body = bytes(40);
        writer(WriteStrategy.SPIN).write(null, body, null);
        assertEquals(0, body.remaining());
        assertEquals(List.of("awaitWritable"), calls); // after 16 writes of 1 byte; then one write takes the rest
        assertEquals(17, counters.getWriteCalls());
        assertEquals(15, counters.getSpins());
    }

    @Test
    void spinWaitsAtOnceWhenTheKernelTakesNothing() throws IOException {
        takes = 0;
        writer(WriteStrategy.SPIN).write(bytes(10), bytes(10), null);
        assertEquals(List.of("awaitWritable"), calls);
        assertEquals(2, counters.getWriteCalls());
        assertEquals(1, counters.getZeroByteWrites());
        assertEquals(0, counters.getSpins());
    }

    @Test
    void directRetriesAtOnceAndKeepsTheDeadlineOnlyWhileNothingMoves() throws IOException {
        takes = 0;
        writer(WriteStrategy.DIRECT).write(null, bytes(10), null);
        // First zero write starts the clock, the second is checked against the deadline; then all goes.
        assertEquals(List.of("checkStalled"), calls);
        assertEquals(3, counters.getWriteCalls());
        assertEquals(2, counters.getSpins());
        assertEquals(0, counters.getWriterWaits());
    }

    @Test
    void hybridLeavesWhatTheKernelRefusedBehindWithoutWaiting() throws IOException {
        takes = 100;
        ByteBuffer body = bytes(1000);
        writer(WriteStrategy.HYBRID).write(bytes(10), body, null);
        assertEquals(0, body.remaining());
        assertEquals(List.of(), calls);
        assertEquals(900, behind.size()); // the socket took 10 of the head and 100 of the body
        assertEquals(1, counters.getDirectWrites());
        assertEquals(1, counters.getWriteBehindHandOvers());
        behind.close();
    }

    @Test
    void hybridWaitsOnlyAtTheBoundAndGoesOnWhereItStopped() throws IOException {
        takes = 0;
        ByteBuffer body = bytes(20_000); // more than the 8 KB bound
        writer(WriteStrategy.HYBRID).write(null, body, null);
        assertEquals(0, body.remaining());
        assertEquals(List.of("awaitWritable"), calls);
        assertTrue(behind.size() > 0 && behind.size() <= 8192, "behind " + behind.size());
        assertEquals(1, counters.getWriteBehindHandOvers());
        behind.close();
    }

    @Test
    void flusherArmsWriteAloneThenRestoresTheRunsInterest() throws IOException {
        WriteBehindFlusher flusher = new WriteBehindFlusher(behind, socket, counters, lock, connection);
        assertEquals(SelectionKey.OP_READ, flusher.interestAfterRun(SelectionKey.OP_READ, 0, false));
        assertFalse(flusher.isFlushing());
        behind.append(bytes(300));
        assertEquals(SelectionKey.OP_WRITE, flusher.interestAfterRun(SelectionKey.OP_READ, 0, true));
        assertTrue(flusher.isFlushing());
        takes = 100;
        flusher.onWritable(); // one write per event, bytes left: still flushing
        assertTrue(flusher.isFlushing());
        takes = Integer.MAX_VALUE;
        flusher.onWritable();
        assertFalse(flusher.isFlushing());
        assertEquals(List.of("wrote", "unlock", "wrote", "flushed " + SelectionKey.OP_READ, "unlock"), calls);
        assertEquals(2, counters.getLoopFlushes());
        assertFalse(lock.isLocked());
    }

    @Test
    void flusherLeavesAConnectionHeldElsewhereAlone() throws Exception {
        WriteBehindFlusher flusher = new WriteBehindFlusher(behind, socket, counters, lock, connection);
        behind.append(bytes(300));
        flusher.interestAfterRun(SelectionKey.OP_READ, 0, true);
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            lock.lock();
            held.countDown();
            release.join();
            lock.unlock();
        });
        holder.start();
        assertTrue(held.await(5, TimeUnit.SECONDS));
        takes = Integer.MAX_VALUE;
        flusher.onWritable();
        flusher.timeOut(1000); // the sweep skips it too
        release.complete(null);
        holder.join();
        assertEquals(List.of("contended"), calls);
        assertTrue(flusher.isFlushing());
        assertEquals(300, behind.size());
        assertEquals(0, counters.getWriteTimeouts());
        behind.close();
    }

    @Test
    void flusherCutsOffAClientPastTheDeadlineAndCountsIt() throws IOException {
        WriteBehindFlusher flusher = new WriteBehindFlusher(behind, socket, counters, lock, connection);
        assertFalse(flusher.isPastDeadline(10_000, 0, 1000)); // not flushing: not its deadline
        behind.append(bytes(300));
        flusher.interestAfterRun(SelectionKey.OP_READ, 0, true);
        assertFalse(flusher.isPastDeadline(1000, 0, 1000));
        assertFalse(flusher.isPastDeadline(10_000, 0, 0)); // no deadline configured
        assertTrue(flusher.isPastDeadline(1001, 0, 1000));
        flusher.timeOut(1000);
        assertEquals(List.of("failed SocketTimeoutException"), calls);
        assertEquals(1, counters.getWriteTimeouts());
        assertFalse(lock.isLocked());
        behind.close();
    }

    @Test
    void drainWritesEverythingWaitingBetweenRefusedWrites() throws IOException {
        WriteBehindFlusher flusher = new WriteBehindFlusher(behind, socket, counters, lock, connection);
        behind.append(bytes(300));
        takes = 0;
        assertFalse(flusher.sendOnce());
        flusher.drain();
        assertTrue(behind.isEmpty());
        assertEquals(List.of("awaitWritable"), calls);
    }
}
