package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * Writes a connection's response bytes for a caller that expects blocking semantics (a servlet's
 * {@code OutputStream}), following the connector's {@link WriteStrategy}. When a call returns, every byte is either
 * in the kernel or, under {@code hybrid}, in the connection's {@link WriteBehindBuffer}.
 * <p>
 * Never loops on a write the kernel refused, except under {@code direct}, the paper's SingleT-Async, which does so on
 * purpose. Waiting for writability is the connection's business ({@link Waiter}): it happens on the calling thread,
 * with the write deadline, without a round trip through another thread.
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
    }

    /** The socket, or under TLS the TLS layer over it (a write returns the plaintext it consumed). */
    private final GatheringByteChannel channel;
    private final WriteStrategy strategy;
    private final WriteBehindBuffer behind;
    private final WriteCounters counters;
    private final Waiter waiter;
    private final ByteBuffer[] pair = new ByteBuffer[2];

    public ResponseWriter(GatheringByteChannel channel, WriteStrategy strategy, WriteBehindBuffer behind,
            WriteCounters counters, Waiter waiter) {
        this.channel = channel;
        this.strategy = strategy;
        this.behind = behind;
        this.counters = counters;
        this.waiter = waiter;
    }

    public WriteStrategy strategy() {
        return strategy;
    }

    /**
     * Writes {@code head} (may be {@code null}), then {@code body}.
     *
     * @param requestClass the response's class when the classifier was consulted (large writes under
     *                     {@code hybrid}), otherwise {@code null}
     */
    public void write(ByteBuffer head, ByteBuffer body, RequestClass requestClass) throws IOException {
        switch (strategy) {
            case HYBRID:
                hybrid(head, body, requestClass);
                break;
            case DIRECT:
                direct(head, body);
                break;
            default:
                spin(head, body);
        }
    }

    /**
     * One direct write for a light response; a heavy one is copied once into direct write-behind memory and written
     * from there. What the kernel does not take stays behind for the event loop.
     */
    private void hybrid(ByteBuffer head, ByteBuffer body, RequestClass requestClass) throws IOException {
        if (behind.isEmpty() && (requestClass == null || !requestClass.isHeavy())) {
            writeOnce(head, body);
            counters.directWrite();
            if (remaining(head, body) == 0) {
                if (requestClass != null) {
                    requestClass.fitted();
                }
                return;
            }
            if (requestClass != null) {
                requestClass.leftBehind();
            }
            leaveBehind(head);
            leaveBehind(body);
            counters.handedToWriteBehind();
            return;
        }
        boolean firstAttempt = behind.isEmpty();
        leaveBehind(head);
        leaveBehind(body);
        if (firstAttempt) {
            behind.writeTo(channel);
            if (requestClass != null) {
                if (behind.isEmpty()) {
                    requestClass.fitted();
                } else {
                    requestClass.leftBehind();
                }
            }
        }
        if (!behind.isEmpty()) {
            counters.handedToWriteBehind();
        }
    }

    /** Copies into the write-behind buffer; at its bound, drains it on this thread, waiting for writability. */
    private void leaveBehind(ByteBuffer src) throws IOException {
        if (src == null) {
            return;
        }
        while (src.hasRemaining()) {
            behind.append(src);
            if (src.hasRemaining() && behind.writeTo(channel) == 0) {
                waiter.awaitWritable();
            }
        }
    }

    /**
     * SingleT-Async: write until done, asking again at once whatever the kernel answered, until no byte has moved for
     * the write deadline (issue 16: it retried forever for a client that stopped reading).
     */
    private void direct(ByteBuffer head, ByteBuffer body) throws IOException {
        long stalledSince = 0;
        long n = writeOnce(head, body);
        while (remaining(head, body) > 0) {
            if (n > 0) {
                stalledSince = 0;
            } else if (stalledSince == 0) {
                stalledSince = System.nanoTime();
            } else {
                waiter.checkStalled(stalledSince);
            }
            counters.spin();
            n = writeOnce(head, body);
        }
    }

    /** NettyServer: a quantum of progress-making writes, then wait for writability. */
    private void spin(ByteBuffer head, ByteBuffer body) throws IOException {
        while (true) {
            for (int i = 0; i < WriteStrategy.SPIN_QUANTUM; i++) {
                if (i > 0) {
                    counters.spin();
                }
                long n = writeOnce(head, body);
                if (remaining(head, body) == 0) {
                    return;
                }
                if (n == 0) {
                    break;
                }
            }
            waiter.awaitWritable();
        }
    }

    /** One {@code write()}, or one gathering {@code writev()} when both buffers hold bytes. */
    private long writeOnce(ByteBuffer head, ByteBuffer body) throws IOException {
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

    private static long remaining(ByteBuffer head, ByteBuffer body) {
        return (head == null ? 0 : head.remaining()) + (long) body.remaining();
    }
}
