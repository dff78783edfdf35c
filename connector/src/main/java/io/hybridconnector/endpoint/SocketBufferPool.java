package io.hybridconnector.endpoint;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.apache.tomcat.util.net.SocketBufferHandler;
import org.apache.tomcat.util.net.SocketProperties;

/**
 * The read and write buffers (8 KB + 64 KB of direct memory) of connections between requests, kept for the next
 * request of any connection. A connection holds a pair only while a request is in progress, so the pool lives on
 * the hot path: a take and a give per request, each a few instructions under a lock no one holds for longer.
 * <p>
 * Bounded, and emptied of what the load no longer needs (issue 16: the unbounded stack it replaces kept every pair
 * a burst had made, 1 MB after the soak and as much as the largest burst of concurrent requests, for good). Every
 * {@link #sweepIfDue sweep} frees the pairs that stayed in the pool through the whole interval since the last one:
 * the fewest pooled at any moment of it (the low-water mark). A load that stops gets all of its memory back after two
 * intervals; a steady load keeps what it uses, since at its busiest moment the pool was down to what it did not use.
 * Freed pairs are released at once ({@link SocketBufferHandler#free}), not when a garbage collection finds them.
 */
final class SocketBufferPool {

    /** Pairs kept at most unless {@code socket.bufferPool} or {@code socket.bufferPoolSize} says otherwise: 9 MB. */
    static final int DEFAULT_CAPACITY = 128;
    /** How long a pair may stay unused in the pool: past the soak's look 90 s after a load, twice over. */
    static final long DEFAULT_IDLE_MILLIS = 30_000;
    /** Lets a test shorten {@link #DEFAULT_IDLE_MILLIS}; read at each start of the endpoint. */
    static final String IDLE_MILLIS_PROPERTY = "io.hybridconnector.socketBufferIdleMillis";

    private final int capacity;
    private final long intervalNanos;
    private SocketBufferHandler[] pairs = new SocketBufferHandler[16];
    private int size;
    /** The fewest pairs pooled since the last sweep. */
    private int lowWater;
    private long lastSweepNanos = System.nanoTime();

    /**
     * @param capacity     pairs kept at most; more given back are freed
     * @param idleMillis   the sweep interval: a pair pooled for all of it is freed
     */
    SocketBufferPool(int capacity, long idleMillis) {
        this.capacity = Math.max(0, capacity);
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
    }

    /**
     * The bound an operator gives stock NIO's buffer cache, read the same way (a count of pairs in
     * {@code socket.bufferPool}, or bytes in {@code socket.bufferPoolSize}; -1 unbounded, 0 none); when neither is
     * set, {@link #DEFAULT_CAPACITY}. Stock's own default keeps nothing below a 2 GB heap, which would make every
     * request allocate and free 72 KB of direct memory here: a connection takes its pair per request, not per
     * connection as stock's does.
     */
    static int capacity(int bufferPool, int bufferPoolSize, int actual) {
        if (bufferPool == -2 && bufferPoolSize == -2) {
            return DEFAULT_CAPACITY;
        }
        return actual < 0 ? Integer.MAX_VALUE : actual;
    }

    /** @return the sweep interval for the next start: {@link #DEFAULT_IDLE_MILLIS} unless the property says otherwise */
    static long idleMillis() {
        return Math.max(1, Long.getLong(IDLE_MILLIS_PROPERTY, DEFAULT_IDLE_MILLIS));
    }

    /** @return a pooled pair, or {@code null} when none is left (the caller makes one) */
    synchronized SocketBufferHandler take() {
        if (size == 0) {
            return null;
        }
        SocketBufferHandler b = pairs[--size];
        pairs[size] = null;
        if (size < lowWater) {
            lowWater = size;
        }
        return b;
    }

    /** Keeps a reset pair for the next request, or frees it when the pool is full. */
    void give(SocketBufferHandler buffers) {
        if (!offer(buffers)) {
            buffers.free();
        }
    }

    private synchronized boolean offer(SocketBufferHandler buffers) {
        if (size == capacity) {
            return false;
        }
        if (size == pairs.length) {
            SocketBufferHandler[] larger = new SocketBufferHandler[(int) Math.min(capacity, 2L * size)];
            System.arraycopy(pairs, 0, larger, 0, size);
            pairs = larger;
        }
        pairs[size++] = buffers;
        return true;
    }

    /**
     * Frees the pairs no request needed since the last sweep, if an interval has passed. Cheap when not due; called
     * by an event loop's timeout sweep, once a second.
     *
     * @return the pairs freed
     */
    int sweepIfDue(long nowNanos) {
        SocketBufferHandler[] unused;
        synchronized (this) {
            if (nowNanos - lastSweepNanos < intervalNanos) {
                return 0;
            }
            lastSweepNanos = nowNanos;
            int n = lowWater;
            lowWater = size - n;
            if (n == 0) {
                return 0;
            }
            // The bottom of the stack: given back longest ago, taken by no request since.
            unused = new SocketBufferHandler[n];
            System.arraycopy(pairs, 0, unused, 0, n);
            System.arraycopy(pairs, n, pairs, 0, size - n);
            Arrays.fill(pairs, size - n, size, null);
            size -= n;
        }
        for (SocketBufferHandler b : unused) {
            b.free();
        }
        return unused.length;
    }

    /** @return the pairs pooled now */
    synchronized int size() {
        return size;
    }

    /** Frees every pooled pair (the endpoint stopped). */
    void clear() {
        SocketBufferHandler b;
        while ((b = take()) != null) {
            b.free();
        }
        synchronized (this) {
            lowWater = 0;
        }
    }

    /** {@code SocketProperties.getActualBufferPool(int)}: 10.1 and 11.0; absent from 9.0 ({@code null}). */
    private static final MethodHandle ACTUAL_BUFFER_POOL = actualBufferPoolMethod();

    private static MethodHandle actualBufferPoolMethod() {
        try {
            return MethodHandles.publicLookup().findVirtual(SocketProperties.class, "getActualBufferPool",
                    MethodType.methodType(int.class, int.class));
        } catch (NoSuchMethodException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 9.0's defaults (bufferPool=500 pairs, bufferPoolSize=100 MB): read as "not set", like 10.1's -2/-2. */
    static int capacity(SocketProperties p) {
        if (ACTUAL_BUFFER_POOL == null) {
            boolean defaults = p.getBufferPool() == 500 && p.getBufferPoolSize() == 100 * 1024 * 1024;
            return defaults ? DEFAULT_CAPACITY : capacity(p.getBufferPool(), p.getBufferPoolSize(), p.getBufferPool());
        }
        try {
            return capacity(p.getBufferPool(), p.getBufferPoolSize(), (int) ACTUAL_BUFFER_POOL.invokeExact(p, 0));
        } catch (Throwable t) {
            throw new IllegalStateException("SocketProperties.getActualBufferPool(int) failed", t);
        }
    }
}
