package io.hybridconnector.write;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one connector's write path did: every {@code write()}/{@code writev()} it made, those that moved nothing,
 * spins, write-behind use and parked writers. Any thread, lock-free. The benchmarks compare these with what
 * {@code perf} counts for the same run.
 */
public final class WriteCounters {

    /** Socket write calls ({@code write} and gathering {@code writev}), from every path. */
    final LongAdder writeCalls = new LongAdder();
    /** Write calls the kernel answered with 0 bytes (EAGAIN). */
    final LongAdder zeroByteWrites = new LongAdder();
    /** Writes retried at once after a partial or empty write, without waiting for writability. */
    final LongAdder spins = new LongAdder();
    /** Responses (or response parts) that left in one direct write: the light path. */
    final LongAdder directWrites = new LongAdder();
    /** Writes that left bytes in the write-behind buffer for the event loop to flush. */
    final LongAdder writeBehindHandOvers = new LongAdder();
    /** Flushes of write-behind buffers by an event loop on writability. */
    final LongAdder loopFlushes = new LongAdder();
    /**
     * Writes the stall detector made for a request that paused with at least stock's 8 KB gathered and not flushed
     * ({@link OutputHold}).
     */
    final LongAdder pausedFlushes = new LongAdder();
    /** Threads that waited for writability because the write-behind bound was reached (or spin/direct waits). */
    final LongAdder writerWaits = new LongAdder();
    /**
     * Writes that failed on the write deadline, each counted once where it failed: bytes behind the loop could not
     * send ({@link WriteBehindFlusher#timeOut}), a writer that waited for writability on its own thread (a blocking
     * write, flush, drain or sendfile, a {@code BLOCK} operation), an asynchronous write operation that waited for
     * the loop (the sweep fails it), a {@code direct} writer that moved nothing.
     */
    final LongAdder writeTimeouts = new LongAdder();
    final AtomicLong writeBehindBytes = new AtomicLong();
    final AtomicLong writeBehindPeak = new AtomicLong();
    final AtomicLong parkedWriters = new AtomicLong();

    public void wrote(long n) {
        writeCalls.increment();
        if (n == 0) {
            zeroByteWrites.increment();
        }
    }

    public void spin() {
        spins.increment();
    }

    public void directWrite() {
        directWrites.increment();
    }

    public void handedToWriteBehind() {
        writeBehindHandOvers.increment();
    }

    public void loopFlush() {
        loopFlushes.increment();
    }

    public void pausedFlush() {
        pausedFlushes.increment();
    }

    public void writeTimeout() {
        writeTimeouts.increment();
    }

    /** A thread starts waiting for writability. */
    public void writerParked() {
        writerWaits.increment();
        parkedWriters.incrementAndGet();
    }

    public void writerResumed() {
        parkedWriters.decrementAndGet();
    }

    void writeBehindGrew(long delta) {
        long now = writeBehindBytes.addAndGet(delta);
        long peak;
        while (now > (peak = writeBehindPeak.get()) && !writeBehindPeak.compareAndSet(peak, now)) {
            // retry
        }
    }

    void writeBehindShrank(long delta) {
        writeBehindBytes.addAndGet(-delta);
    }

    public long getWriteCalls() {
        return writeCalls.sum();
    }

    public long getZeroByteWrites() {
        return zeroByteWrites.sum();
    }

    public long getSpins() {
        return spins.sum();
    }

    public long getDirectWrites() {
        return directWrites.sum();
    }

    public long getWriteBehindHandOvers() {
        return writeBehindHandOvers.sum();
    }

    public long getLoopFlushes() {
        return loopFlushes.sum();
    }

    public long getPausedFlushes() {
        return pausedFlushes.sum();
    }

    public long getWriterWaits() {
        return writerWaits.sum();
    }

    public long getWriteTimeouts() {
        return writeTimeouts.sum();
    }

    public long getWriteBehindBytes() {
        return writeBehindBytes.get();
    }

    public long getWriteBehindPeak() {
        return writeBehindPeak.get();
    }

    public long getParkedWriters() {
        return parkedWriters.get();
    }

    /** Resets the counters; gauges (bytes held, parked writers) keep their value, the peak restarts from it. */
    public void reset() {
        writeCalls.reset();
        zeroByteWrites.reset();
        spins.reset();
        directWrites.reset();
        writeBehindHandOvers.reset();
        loopFlushes.reset();
        pausedFlushes.reset();
        writerWaits.reset();
        writeTimeouts.reset();
        writeBehindPeak.set(writeBehindBytes.get());
    }
}
