package io.hybridconnector.write;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SelectionKey;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * Takes a connection's bytes behind ({@link WriteBehindBuffer}, under TLS held records too) out after the run that
 * left them: the connection's write-behind state machine. Its state is the loop leader's only: when a run ends with
 * bytes behind, the key is armed for writability alone, and the leader writes once per writability event, under
 * {@code tryLock}, never waiting; when all has left, the interest the run asked for comes back (the next request is
 * read only after this response has left). {@link #sendOnce}, {@link #writeAll} and {@link #drain} are for the thread
 * that holds the connection (or a writer without its lock) and change no state.
 * <pre>
 *                   interestAfterRun: the run left bytes behind
 *                   (arm OP_WRITE alone, keep the run's interest)
 *   NOT_FLUSHING ───────────────────────────────────────────────► FLUSHING ──┐ onWritable: one write, bytes left,
 *        ▲                                                         │  │  │ ◄─┘ or another thread holds the
 *        │           onWritable: one write, all gone               │  │  │     connection (interest suspended)
 *        └────────── (Connection.flushed: the kept interest back) ─┘  │  │
 *                                                                      │  │ onWritable: the write failed
 *   CLOSED ◄───────────────────────────────────────────────────────────┘  │ (Connection.failed)
 *     ▲ ▲  ◄──────────────────────────────────────────────────────────────┘ timeOut: no byte moved for the write
 *     │ │                                                                   deadline (the loop's sweep; writeTimeouts)
 *     │ └── onWritable, all gone while the endpoint stops (Connection.flushed closes: not reused)
 *     └──── any close (the connection's; its state is dropped with it)
 * </pre>
 * Only the leader moves between these states. An asynchronous write operation on another thread may send bytes
 * behind meanwhile; both write under {@code synchronized (behind)}.
 */
public final class WriteBehindFlusher {

    private static final Log log = LogFactory.getLog(WriteBehindFlusher.class);

    /** What the flusher needs from its connection. */
    public interface Connection {
        /** Another thread holds the connection: suspend its interest until the holder lets go. Leader only. */
        void contended();

        /** Lets go of the connection's lock, resuming what waited for it. */
        void unlockAndResume();

        /** Bytes moved: the write deadline starts again. */
        void wrote();

        /**
         * Every byte behind has left: the connection goes on with the interest its run asked for (or closes, if the
         * endpoint is stopping). Leader only, lock held.
         */
        void flushed(int ops);

        /** The socket stays failed with {@code cause} and the connection closes. Lock held. */
        void failed(IOException cause);

        /** Waits on this thread for writability with the write deadline, handing its loop over first. */
        void awaitWritable() throws IOException;
    }

    private final WriteBehindBuffer behind;
    /** The socket, or under TLS the TLS layer over it. */
    private final GatheringByteChannel out;
    private final WriteCounters counters;
    private final ReentrantLock lock;
    private final Connection connection;
    /** Leader only: the key is armed for writability to send bytes behind, not for Tomcat. */
    private boolean flushing;
    /** Leader only: the interest to restore once the bytes behind have left. */
    private int afterFlushOps;

    public WriteBehindFlusher(WriteBehindBuffer behind, GatheringByteChannel out, WriteCounters counters,
            ReentrantLock lock, Connection connection) {
        this.behind = behind;
        this.out = out;
        this.counters = counters;
        this.lock = lock;
        this.connection = connection;
    }

    /**
     * A run ended: with bytes behind, the connection waits for writability alone. Leader only.
     *
     * @param ops       the interest the connection would have after the run
     * @param requested the interest the run asked for
     * @return the interest to arm the key with
     */
    public int interestAfterRun(int ops, int requested, boolean bytesBehind) {
        if (!bytesBehind) {
            return ops;
        }
        flushing = true;
        afterFlushOps |= (ops & ~SelectionKey.OP_WRITE) | (requested & SelectionKey.OP_WRITE);
        return SelectionKey.OP_WRITE;
    }

    /** @return whether the key is armed to send bytes behind (a writability event is the flusher's). Leader only. */
    public boolean isFlushing() {
        return flushing;
    }

    /**
     * The socket is writable: one write of the bytes behind, no retry, no wait; when all has left, the connection goes
     * back to its run's interest. Leader only.
     */
    public void onWritable() {
        if (!lock.tryLock()) {
            connection.contended();
            return;
        }
        try {
            counters.loopFlush();
            boolean empty;
            synchronized (behind) { // an asynchronous write operation on another thread writes these first too
                if (behind.writeTo(out) > 0) {
                    connection.wrote();
                }
                empty = behind.isEmpty();
            }
            if (empty) {
                flushing = false;
                int ops = afterFlushOps;
                afterFlushOps = 0;
                connection.flushed(ops);
            }
        } catch (IOException e) {
            connection.failed(e);
        } finally {
            connection.unlockAndResume();
        }
    }

    /** @return whether bytes behind have moved nothing for the write deadline. Leader only. */
    public boolean isPastDeadline(long nowMillis, long lastWriteMillis, long timeoutMillis) {
        return flushing && timeoutMillis > 0 && nowMillis - lastWriteMillis > timeoutMillis;
    }

    /**
     * The client stopped reading a response that is already complete for Tomcat: cuts it off, leaving the socket
     * failed. Skipped if another thread holds the connection (the next sweep looks again). Leader only.
     */
    public void timeOut(long timeoutMillis) {
        if (!lock.tryLock()) {
            return;
        }
        try {
            counters.writeTimeout();
            connection.failed(new SocketTimeoutException("Write timed out after " + timeoutMillis + " ms with " +
                    behind.size() + " bytes left behind"));
        } finally {
            lock.unlock();
        }
    }

    /**
     * One write of the bytes behind, never waiting, for a thread holding the connection that must send them before
     * its own.
     *
     * @return whether none are left
     */
    public boolean sendOnce() throws IOException {
        return behind.isEmpty() || (behind.writeTo(out) > 0 && behind.isEmpty());
    }

    /** Sends all bytes behind on this thread, waiting for writability between writes. */
    public void writeAll() throws IOException {
        while (!behind.isEmpty()) {
            if (behind.writeTo(out) == 0) {
                connection.awaitWritable();
            }
        }
    }

    /** {@link #writeAll}, before a close or a file: a failure is only logged (the connection fails anyway). */
    public void drain() {
        try {
            writeAll();
        } catch (IOException e) {
            log.debug("Could not send the rest of the response before closing " + connection, e);
        }
    }
}
