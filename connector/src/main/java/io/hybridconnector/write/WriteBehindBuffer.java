package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The bytes of one connection that the kernel has not taken yet, in pooled direct memory, up to a bound. The
 * request's thread leaves them here and moves on; the connection's event loop writes them out when the socket is
 * writable. Holds no memory while empty: the buffer goes back to the pool as soon as it drains, so an idle
 * keep-alive connection costs nothing.
 * <p>
 * Direct memory matters: the JDK copies a heap buffer into a temporary direct buffer on every {@code write()}, so a
 * 100 KB heap response written through a 16 KB window is copied again, in full, on each partial write. Copied here
 * once, the rest leaves without further copies however many writes the window forces.
 * <p>
 * Used under the connection's lock, or by a writer that does not hold it (an application's thread writing an async
 * response, Tomcat's WebSocket writers): an append or a write excludes the others for its duration. {@link #close} may
 * come from any thread: memory in use by a write is released by that write as it ends, never under it (issue 16).
 * <pre>
 *   IDLE --append/writeTo--> IN_USE --returns--> IDLE
 *     |                         |
 *   close: released           close: IN_USE|CLOSED --returns: released--> CLOSED
 *     v
 *   CLOSED: append throws ClosedChannelException, writeTo sends nothing
 * </pre>
 */
public final class WriteBehindBuffer {

    private static final int IN_USE = 1;
    private static final int CLOSED = 2;

    private final ByteBufAllocator allocator;
    private final int limit;
    private final WriteCounters counters;
    private ByteBuf buf;
    /** {@link #IN_USE} while an append or a write runs, {@link #CLOSED} once the connection closed. Any thread. */
    private final AtomicInteger state = new AtomicInteger();
    /** TLS: encrypted bytes the kernel did not take, held by the TLS layer; {@code null} on plaintext connections. */
    private PendingOutput lower;

    public WriteBehindBuffer(ByteBufAllocator allocator, int limit, WriteCounters counters) {
        this.allocator = allocator;
        this.limit = limit;
        this.counters = counters;
    }

    /** Makes the bytes held by a layer under the writer (TLS) count as bytes behind, and leave first. */
    public void setLower(PendingOutput lower) {
        this.lower = lower;
    }

    /** @return whether nothing waits for the kernel: neither plaintext here nor, under TLS, encrypted records */
    public boolean isEmpty() {
        return buf == null && (lower == null || !lower.hasPendingOutput());
    }

    public int size() {
        return buf == null ? 0 : buf.readableBytes();
    }

    /** @return how many more bytes the bound allows */
    public int room() {
        return limit - size();
    }

    /**
     * Copies as much of {@code src} as the bound allows.
     *
     * @return the number of bytes copied
     * @throws ClosedChannelException once the connection closed: memory taken now would never go back to the pool
     */
    public int append(ByteBuffer src) throws ClosedChannelException {
        enter();
        try {
            return appendInUse(src);
        } finally {
            exit();
        }
    }

    private int appendInUse(ByteBuffer src) {
        int n = Math.min(src.remaining(), room());
        if (n == 0) {
            return 0;
        }
        if (buf == null) {
            buf = allocator.directBuffer(Math.min(limit, Math.max(n, WriteBehindMemory.MIN_BUFFER)), limit);
        } else if (buf.maxWritableBytes() < n) {
            buf.discardReadBytes();
        }
        int savedLimit = src.limit();
        src.limit(src.position() + n);
        buf.writeBytes(src);
        src.limit(savedLimit);
        counters.writeBehindGrew(n);
        return n;
    }

    /**
     * One write call with everything held; releases the memory once it has all left. Under TLS the channel is the
     * TLS layer, which sends the records it still holds before it encrypts more; with no plaintext left here, only
     * those records are sent.
     *
     * @return the bytes the kernel took (plaintext consumed; encrypted bytes when only held records were sent)
     */
    public int writeTo(GatheringByteChannel channel) throws IOException {
        enter();
        try {
            return writeToInUse(channel);
        } finally {
            exit();
        }
    }

    private int writeToInUse(GatheringByteChannel channel) throws IOException {
        if (lower != null && lower.hasPendingOutput()) {
            // Encrypted records first. Progress on them is progress (the write deadline), even if they do not all go.
            int n = lower.flushPendingOutput();
            counters.wrote(n);
            if (buf == null || lower.hasPendingOutput()) {
                return n;
            }
        }
        if (buf == null) {
            return 0;
        }
        int n = buf.readBytes(channel, buf.readableBytes());
        counters.wrote(n);
        if (n > 0) {
            counters.writeBehindShrank(n);
        }
        if (!buf.isReadable()) {
            release();
        }
        return n;
    }

    /**
     * The connection closed: drops what is held and gives the memory back, now or, if a write is using it, as that
     * write ends; holds nothing from now on. Any thread.
     */
    public void close() {
        while (true) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                return;
            }
            if (state.compareAndSet(s, s | CLOSED)) {
                if (s == 0) {
                    release();
                }
                return;
            }
        }
    }

    /**
     * Two users at once (an application's thread writing an async response while the loop flushes what an earlier
     * write left): the second waits for the first, one copy or one write call long.
     */
    private void enter() throws ClosedChannelException {
        while (!state.compareAndSet(0, IN_USE)) {
            if ((state.get() & CLOSED) != 0) {
                throw new ClosedChannelException();
            }
            Thread.onSpinWait();
        }
    }

    private void exit() {
        if (!state.compareAndSet(IN_USE, 0)) {
            state.set(CLOSED);
            release(); // closed while this write used the memory: given back now that it is done
        }
    }

    /** Drops what is held and gives the memory back. */
    private void release() {
        ByteBuf b = buf;
        if (b != null) {
            buf = null;
            counters.writeBehindShrank(b.readableBytes());
            b.release();
        }
    }
}
