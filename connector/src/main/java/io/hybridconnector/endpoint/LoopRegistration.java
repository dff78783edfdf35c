package io.hybridconnector.endpoint;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.write.WriteBehindFlusher;

/**
 * A connection's key on its loop's selector and the key's interest set: registration, Tomcat's interest calls
 * ({@code registerReadInterest}, {@code registerWriteInterest}), the interest after a run, a suspension while another
 * thread holds the connection, and arming for asynchronous operations. One writer for a selection key: only the
 * loop's current leader touches the key; any other thread sends its change to the loop as a task (one wake-up).
 */
abstract class LoopRegistration extends AsyncOperations {

    /** Leader only. */
    SelectionKey key;
    /** Leader only: the operations the key is armed for. */
    int interestOps;
    /** Leader only: interest taken away while another thread held the connection. */
    int suspendedOps;

    LoopRegistration(SocketChannel channel, HybridEndpoint endpoint, EventLoop loop) {
        super(channel, endpoint, loop);
    }


    /** Registers with the loop's selector for the first request. Leader only. */
    public boolean registerWithLoop() {
        try {
            key = loop.register(channel, SelectionKey.OP_READ, this);
            interestOps = SelectionKey.OP_READ;
            return true;
        } catch (IOException | RuntimeException e) {
            log.debug("Registration failed", e);
            close();
            return false;
        }
    }

    /** Leader only: the connection's run goes on elsewhere (a moved run, another thread holding it). */
    @Override
    public void suspendInterest() {
        suspendInterest(0);
    }

    /**
     * Leader only: the connection runs elsewhere for now (a moved run, a worker, a thread holding it), for an event
     * that consumed {@code consumed}. Write interest stays armed, unless that event is the write: a write operation
     * is then completed by the loop without the connection's lock ({@code runWriteOperationFromLoop}), a
     * non-blocking write's rest runs as a write event under the lock whenever it is free (on a worker that waits for
     * it, or polled, see {@code markContended}). So a run that waits for its own connection's write, as Tomcat's
     * WebSocket close does for the message being sent, never waits for a loop that no longer watches the socket.
     */
    public void suspendInterest(int consumed) {
        // Bytes behind are flushed under tryLock (WriteBehindFlusher.onWritable): kept armed, they would be
        // reported again at once while the holder keeps the lock.
        int kept = flusher.isFlushing() ? 0
                : interestOps & ((SelectionKey.OP_WRITE & ~consumed) | (waitingOps() & SelectionKey.OP_WRITE));
        suspendedOps |= interestOps & ~kept;
        setInterest(kept);
    }

    /** Any thread, racily (the stall detector): see {@link io.hybridconnector.loop.LoopChannel#writeWaitsForLoop}. */
    @Override
    public boolean writeWaitsForLoop() {
        return isWaiting(writeOperation) || ((interestOps & SelectionKey.OP_WRITE) != 0 && !flusher.isFlushing());
    }

    /**
     * Leader only. With bytes left behind, the connection waits for writability alone: the loop flushes them, and
     * only then restores the interest the run asked for ({@link WriteBehindFlusher}).
     */
    @Override
    final void applyInterest(int consumed, int requested, boolean bytesBehind) {
        if (isClosed()) {
            return;
        }
        int ops = ((interestOps | suspendedOps) & ~consumed) | requested | waitingOps();
        suspendedOps = 0;
        setInterest(flusher.interestAfterRun(ops, requested, bytesBehind));
    }

    /** Leader only. Touches the kernel only when the interest set really changes. */
    void setInterest(int ops) {
        if (ops != interestOps && key != null && key.isValid()) {
            key.interestOps(ops);
            interestOps = ops;
        }
    }

    /** Interest registered outside a run (Servlet non-blocking I/O from an application thread). Any thread. */
    void addInterestFromAnyThread(int op) {
        if (loop.inLoop()) {
            setInterest(interestOps | op);
        } else {
            loop.submit(() -> {
                setInterest(interestOps | op);
                return true;
            });
        }
    }

    // ------------------------------------------------------------------ SocketWrapperBase: interest

    @Override
    public void registerReadInterest() {
        registerInterest(SelectionKey.OP_READ);
    }

    @Override
    public void registerWriteInterest() {
        registerInterest(SelectionKey.OP_WRITE);
    }

    private void registerInterest(int op) {
        if (processingThread == Thread.currentThread()) {
            // Inside a run on this thread: applied when the run ends (on the fast path, by doing nothing).
            requestedOps |= op;
        } else {
            addInterestFromAnyThread(op);
        }
    }

    @Override
    void clearInterest(int op) {
        setInterest(interestOps & ~op);
    }

    /**
     * Arms the key for an operation that waits for the loop: directly when the caller leads the loop, otherwise as a
     * task. Any thread.
     */
    @Override
    void armForOperation(int op) {
        if (loop.inLoop()) {
            // A run in progress keeps it at its end too: applyInterest adds waitingOps().
            setInterest(interestOps | op);
            if (loop.inLoop()) {
                return;
            }
            // The loop was handed to another thread meanwhile: its leader sets the key again, from what it knows.
        }
        loop.submit(() -> {
            int ops = interestOps | op;
            if (key != null && key.isValid()) {
                key.interestOps(ops);
                interestOps = ops;
            }
            return true;
        });
    }

    /** Takes the key off the selector, at close. Any thread ({@code SelectionKey.cancel} is). */
    void cancelKey() {
        if (key != null) {
            key.cancel();
        }
    }
}
