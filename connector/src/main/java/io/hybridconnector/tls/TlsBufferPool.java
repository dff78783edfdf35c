package io.hybridconnector.tls;

import java.nio.ByteBuffer;

import org.apache.tomcat.util.collections.SynchronizedStack;

/**
 * The TLS layers' record buffers, shared by an endpoint's connections: a connection takes them while it has bytes in
 * flight and gives them back when it goes idle, so that an idle keep-alive TLS connection holds no buffers, as a
 * plaintext one holds none. Thread-safe.
 */
public final class TlsBufferPool {

    /** One TLS record with its header, padding and tag (the JDK reports 16709), or one record's plaintext. */
    public static final int BUFFER_SIZE = 17 * 1024;

    /** An empty buffer in read mode, held in place of a real one. */
    static final ByteBuffer NONE = ByteBuffer.allocate(0);

    private final SynchronizedStack<ByteBuffer> buffers;

    /** @param maxPooled buffers kept for reuse at most; more are left to the garbage collector */
    public TlsBufferPool(int maxPooled) {
        buffers = new SynchronizedStack<>(Math.min(128, maxPooled), maxPooled);
    }

    /** @return an empty buffer of {@link #BUFFER_SIZE}, in read mode (position = limit = 0) */
    ByteBuffer take() {
        ByteBuffer b = buffers.pop();
        if (b == null) {
            b = ByteBuffer.allocate(BUFFER_SIZE);
        }
        b.clear();
        b.flip();
        return b;
    }

    /** Takes back a buffer of the pool's size; others (grown for a large record) are dropped. */
    void give(ByteBuffer b) {
        if (b != NONE && b.capacity() == BUFFER_SIZE) {
            buffers.push(b);
        }
    }

    public void clear() {
        buffers.clear();
    }

    // ------------------------------------------------------------------ moving bytes between record buffers

    /** Copies what fits of {@code from} into {@code to}. @return the bytes copied */
    static int transfer(ByteBuffer from, ByteBuffer to) {
        int n = Math.min(from.remaining(), to.remaining());
        if (n == from.remaining()) {
            to.put(from);
        } else {
            int limit = from.limit();
            from.limit(from.position() + n);
            to.put(from);
            from.limit(limit);
        }
        return n;
    }

    /** @return whether any of the buffers has bytes left */
    static boolean anyRemaining(ByteBuffer[] srcs, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (srcs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    /** @return {@code readMode} if it holds {@code capacity}, else a larger heap buffer with its bytes, in read mode */
    static ByteBuffer grown(ByteBuffer readMode, int capacity) {
        if (readMode.capacity() >= capacity) {
            return readMode;
        }
        ByteBuffer bigger = ByteBuffer.allocate(capacity);
        bigger.put(readMode);
        bigger.flip();
        return bigger;
    }
}
