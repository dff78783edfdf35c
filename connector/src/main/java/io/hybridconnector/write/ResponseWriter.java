package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * Writes a connection's response bytes for a caller that expects blocking semantics (a servlet's
 * {@code OutputStream}), by the connector's write strategy (a {@link BlockingWrite}). When a call returns, every byte
 * is either in the kernel or, under {@code hybrid}, in the connection's {@link WriteBehindBuffer}.
 * <p>
 * {@link #write} is the one place that acts on what the strategy returned ({@link BlockingWrite}'s contract): it waits
 * for writability, or asks again at once and keeps the write deadline for a strategy that retries without waiting.
 * Waiting is the connection's business ({@link Waiter}): it happens on the calling thread, with the write deadline,
 * without a round trip through another thread.
 * <p>
 * Not thread-safe: used under the connection's lock.
 */
public final class ResponseWriter {

    /** The connection's side of waiting: for writability, and the write deadline. */
    public interface Waiter {
        /** Blocks the calling thread until the socket is writable, or throws when the write deadline passes. */
        void awaitWritable() throws IOException;

        /**
         * For a strategy that retries without waiting ({@code direct}): no byte has moved since
         * {@code stalledSinceNanos}. Throws, leaving the socket failed, once that is longer than the write deadline.
         */
        void checkStalled(long stalledSinceNanos) throws IOException;

        /** Bytes moved: the write deadline starts again. */
        void wrote();
    }

    /** The socket, or under TLS the TLS layer over it (a write returns the plaintext it consumed). */
    final GatheringByteChannel channel;
    final WriteBehindBuffer behind;
    final WriteCounters counters;
    private final BlockingWrite strategy;
    final Waiter waiter;
    private final ByteBuffer[] pair = new ByteBuffer[2];

    public ResponseWriter(GatheringByteChannel channel, WriteStrategy strategy, WriteBehindBuffer behind,
            WriteCounters counters, Waiter waiter) {
        this.channel = channel;
        this.behind = behind;
        this.counters = counters;
        this.waiter = waiter;
        this.strategy = strategy.newWrite(this);
    }

    /** @return whether {@link #write} wants the response's class for large writes (a classifier lookup) */
    public boolean usesRequestClass() {
        return strategy.usesRequestClass();
    }

    /**
     * Writes {@code head} (may be {@code null}), then {@code body}.
     *
     * @param requestClass the response's class when the caller looked it up ({@link #usesRequestClass()}),
     *                     otherwise {@code null}
     */
    public void write(ByteBuffer head, ByteBuffer body, RequestClass requestClass) throws IOException {
        int status = strategy.write(head, body, requestClass, false);
        if (status != BlockingWrite.DONE) {
            incompleteWrite(head, body, requestClass, status);
        }
    }

    /** The strategy stopped short: wait for writability or retry at once, as it asked, until it is done. */
    private void incompleteWrite(ByteBuffer head, ByteBuffer body, RequestClass requestClass, int status)
            throws IOException {
        long stalledSince = 0;
        do {
            if (status == BlockingWrite.AWAIT_WRITABLE) {
                waiter.awaitWritable();
            } else {
                if (status == BlockingWrite.RETRY_MOVED) {
                    stalledSince = 0;
                } else if (stalledSince == 0) {
                    stalledSince = System.nanoTime();
                } else {
                    waiter.checkStalled(stalledSince);
                }
                counters.spin();
            }
            status = strategy.write(head, body, requestClass, true);
        } while (status != BlockingWrite.DONE);
    }

    /** One {@code write()}, or one gathering {@code writev()} when both buffers hold bytes. For strategies. */
    long writeOnce(ByteBuffer head, ByteBuffer body) throws IOException {
        long n;
        if (head != null && head.hasRemaining()) {
            if (body.hasRemaining()) {
                pair[0] = head;
                pair[1] = body;
                try {
                    n = channel.write(pair);
                } finally {
                    pair[0] = null;
                    pair[1] = null;
                }
            } else {
                n = channel.write(head);
            }
        } else {
            n = channel.write(body);
        }
        counters.wrote(n);
        return n;
    }

    static long remaining(ByteBuffer head, ByteBuffer body) {
        return (head == null ? 0 : head.remaining()) + (long) body.remaining();
    }
}
