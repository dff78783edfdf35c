package io.hybridconnector.endpoint;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.loop.EventLoop;

import org.apache.tomcat.util.ExceptionUtils;

/**
 * Tomcat's asynchronous socket operations ({@code useAsyncIO="true"}: {@code read/write(..., CompletionHandler)} and
 * their vectored forms, used by HTTP/2, WebSocket and internal upgrade handlers): tried on the caller; what the kernel
 * could not do yet is completed by the loop's leader when the socket is ready, reads under the connection's lock,
 * writes without it (DESIGN.md, "Asynchronous socket operations"). Threads: as each method says.
 */
abstract class AsyncOperations extends ConnectionIo {

    AsyncOperations(SocketChannel channel, HybridEndpoint endpoint, EventLoop loop) {
        super(channel, endpoint, loop);
    }

    /**
     * Arms the key for an operation that waits for the loop: directly when the caller leads the loop, otherwise as a
     * task. Any thread.
     */
    abstract void armForOperation(int op);

    /** Takes {@code op} out of the key's interest. Leader only. */
    abstract void clearInterest(int op);

    /**
     * Leader only: after a run, the interest the run asked for; with bytes left behind, writability alone until they
     * have left.
     */
    abstract void applyInterest(int consumed, int requested, boolean bytesBehind);


    /**
     * Tomcat's asynchronous socket operations ({@code read/write(..., CompletionHandler)}, used by HTTP/2 and
     * WebSocket when {@code useAsyncIO="true"}, and by internal upgrade handlers). The caller tries at once; what the
     * kernel cannot do yet waits for the loop, which completes it on its leader when it finds the socket ready. A
     * {@code BLOCK} operation waits on its caller's own {@link SocketWaiter} instead, as every blocking read or write of
     * this connector does.
     */
    @Override
    protected <A> OperationState<A> newOperationState(boolean read, ByteBuffer[] buffers, int offset, int length,
            BlockingMode block, long timeout, TimeUnit unit, A attachment, CompletionCheck check,
            CompletionHandler<Long,? super A> handler, Semaphore semaphore, VectoredIOCompletionHandler<A> completion) {
        return new LoopOperation<>(read, buffers, offset, length, block, timeout, unit, attachment, check, handler,
                semaphore, completion);
    }

    /** @return the interest that operations waiting for the loop need kept armed. Any thread (volatile reads). */
    int waitingOps() {
        return (isWaiting(readOperation) ? SelectionKey.OP_READ : 0) |
                (isWaiting(writeOperation) ? SelectionKey.OP_WRITE : 0);
    }

    static boolean isWaiting(OperationState<?> op) {
        return op instanceof LoopOperation && ((LoopOperation<?>) op).waiting;
    }

    /**
     * The loop found the socket writable for a write operation: completes it on the leader. Writes take no connection
     * lock (as on Tomcat's NIO, writes may come from stream threads while the connection's thread reads), so a
     * connection held by a thread that waits for this very write cannot stall it. Leader only.
     */
    boolean runWriteOperationFromLoop() {
        OperationState<?> op = writeOperation;
        // Consumed: the operation arms the key again if the kernel still takes nothing.
        clearInterest(SelectionKey.OP_WRITE);
        if (!isWaiting(op)) {
            return true;
        }
        long seq = loop.beginRun(this);
        runOperation(op);
        return loop.endRun(seq);
    }

    /**
     * The loop found the socket readable for a read operation: completes it on the leader under the connection's
     * lock (its completion handler goes on with the connection, e.g. HTTP/2's frame parsing); the key stays armed
     * for reading, so a read that completes and is followed by the next (HTTP/2's parser) costs no interest change.
     * Leader only.
     */
    boolean runReadOperationFromLoop() {
        if (!lock.tryLock()) {
            contended();
            return true;
        }
        boolean leading;
        try {
            long seq = loop.beginRun(this);
            Thread previous = processingThread;
            processingThread = Thread.currentThread();
            requestedOps = 0;
            try {
                runOperation(readOperation);
            } finally {
                processingThread = previous;
            }
            leading = loop.endRun(seq);
            int requested = requestedOps;
            boolean bytesBehind = !behind.isEmpty();
            if (leading) {
                applyInterest(0, requested, bytesBehind);
            } else {
                loop.submit(() -> {
                    applyInterest(0, requested, bytesBehind);
                    return true;
                });
            }
        } finally {
            unlockAndResume();
        }
        return leading;
    }

    private void runOperation(OperationState<?> op) {
        if (op == null) {
            return;
        }
        try {
            op.run();
        } catch (Throwable t) {
            ExceptionUtils.handleThrowable(t);
            log.error("Error completing an asynchronous operation on " + this, t);
            close();
        }
    }

    /** A read or write operation that timed out while it waited for the loop: it fails with the timeout. Leader. */
    boolean failOperationOnTimeout(boolean read) {
        if (!read) {
            writeCounters.writeTimeout();
        }
        setError(new SocketTimeoutException((read ? "Read" : "Write") + " timed out"));
        return read ? runReadOperationFromLoop() : runWriteOperationFromLoop();
    }

    /**
     * One asynchronous read or write. Runs on its caller first, then, if the kernel could not do it, on the loop's
     * leader when the socket is ready ({@link #onReady}); a {@code BLOCK} operation waits on its caller's thread.
     * Calls on one operation are serialised as on Tomcat's NIO: a second notification while one is processed is
     * dropped ({@code completionDone}).
     * <p>
     * Follows Tomcat 10.1.59 {@code org/apache/tomcat/util/net/NioEndpoint.java}, {@code NioSocketWrapper.NioOperationState}
     * ({@code run}: the {@code completionDone} serialisation, bytes a processor handed back read first, the
     * completion check and handler call of {@code SocketWrapperBase.OperationState}); Tomcat 11.0.25 is the same.
     * Differs on purpose: a socket that is not ready is armed with the connection's loop (Tomcat: its poller), and
     * the completion runs on the loop's leader inline (Tomcat: an executor thread); {@code BLOCK} waits on the
     * caller's {@link SocketWaiter}.
     */
    private final class LoopOperation<A> extends OperationState<A> {

        /** Cleared once the operation has waited for the socket: its completion is then not inline. */
        private volatile boolean inline = true;
        /** Armed with the loop and waiting for readiness. Any thread (volatile): set by the runner, read by the loop. */
        volatile boolean waiting;

        private LoopOperation(boolean read, ByteBuffer[] buffers, int offset, int length, BlockingMode block,
                long timeout, TimeUnit unit, A attachment, CompletionCheck check,
                CompletionHandler<Long,? super A> handler, Semaphore semaphore,
                VectoredIOCompletionHandler<A> completion) {
            super(read, buffers, offset, length, block, timeout, unit, attachment, check, handler, semaphore,
                    completion);
        }

        @Override
        protected boolean isInline() {
            return inline;
        }

        /** Under TLS, records the kernel did not take yet; bytes an HTTP/1.1 response left behind. */
        @Override
        protected boolean hasOutboundRemaining() {
            synchronized (behind) {
                return !behind.isEmpty();
            }
        }

        @Override
        public void run() {
            // A read's completion handler goes on with the connection (HTTP/2 parses frames and hands back the bytes
            // of a partial one): two threads reading at once would parse frames out of order. Tests run with -ea.
            assert !read || lock.isHeldByCurrentThread() : "a read of " + AsyncOperations.this + " without its lock";
            long n = 0;
            boolean done = false;
            if (getError() == null) {
                try {
                    synchronized (this) {
                        if (!completionDone) {
                            return; // the notification that is already being processed covers this one
                        }
                        waiting = false;
                        n = read ? readNow() : writeNow();
                        done = n == 0 && finished();
                        if (n != 0 || done) {
                            completionDone = false;
                        }
                    }
                    if (n == 0 && !done && block == BlockingMode.BLOCK) {
                        n = awaitAndRetry();
                        done = n == 0 && finished();
                    }
                } catch (IOException e) {
                    setError(e);
                }
            }
            if (n > 0 || done) {
                completion.completed(Long.valueOf(n), this);
            } else if (n < 0 || getError() != null) {
                IOException error = getError();
                completion.failed(error == null ? new EOFException() : error, this);
            } else {
                inline = false;
                waiting = true;
                armForOperation(read ? SelectionKey.OP_READ : SelectionKey.OP_WRITE);
            }
        }

        private boolean finished() {
            return !buffersArrayHasRemaining(buffers, offset, length) && (read || !hasOutboundRemaining());
        }

        /** {@code BLOCK}: waits for the socket on this thread, with the operation's deadline. */
        private long awaitAndRetry() throws IOException {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    if (!read) {
                        writeCounters.writeTimeout();
                    }
                    throw new SocketTimeoutException((read ? "Read" : "Write") + " timed out after " +
                            unit.toMillis(timeout) + " ms");
                }
                awaitSocket(read ? SelectionKey.OP_READ : SelectionKey.OP_WRITE, left);
                long n;
                synchronized (this) {
                    n = read ? readNow() : writeNow();
                    if (n != 0 || finished()) {
                        completionDone = false;
                        return n;
                    }
                }
            }
        }

        /** Bytes a processor handed back first, then one scattering read; -1 at end of stream. */
        private long readNow() throws IOException {
            long n = 0;
            socketBufferHandler.configureReadBufferForRead();
            ByteBuffer held = socketBufferHandler.getReadBuffer();
            for (int i = 0; i < length && held.hasRemaining(); i++) {
                n += transfer(held, buffers[offset + i]);
            }
            if (n > 0) {
                return n;
            }
            if (tls == null) {
                n = channel.read(buffers, offset, length);
            } else {
                for (int i = 0; i < length; i++) {
                    if (buffers[offset + i].hasRemaining()) {
                        int r = tls.read(buffers[offset + i]);
                        if (r <= 0) {
                            n = n == 0 ? r : n;
                            break;
                        }
                        n += r;
                    }
                }
            }
            if (n > 0) {
                lastRead = System.currentTimeMillis();
            }
            return n;
        }

        /** Bytes left behind and held TLS records first, then gathering writes while the kernel takes them. */
        private long writeNow() throws IOException {
            checkPreviousError();
            if (lock.isHeldByCurrentThread()) {
                // Gathered bytes left for the stall detector go first. Only the connection's running thread holds
                // any (GatheredOutput.afterGathering), so a writer without the lock has none to take back.
                gathering.takeBack();
            }
            long total = 0;
            synchronized (behind) {
                while (!behind.isEmpty()) {
                    if (behind.writeTo(out) <= 0) {
                        return 0;
                    }
                }
                socketBufferHandler.configureWriteBufferForRead();
                ByteBuffer held = socketBufferHandler.getWriteBuffer();
                while (held.hasRemaining()) {
                    if (out.write(held) <= 0) {
                        return 0;
                    }
                }
                long n;
                do {
                    n = out.write(buffers, offset, length);
                    writeCounters.wrote(n);
                    total += n;
                } while (n > 0 && behind.isEmpty() && buffersArrayHasRemaining(buffers, offset, length));
            }
            if (total > 0) {
                wrote();
            }
            return total;
        }
    }

}
