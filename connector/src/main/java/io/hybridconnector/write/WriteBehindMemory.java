package io.hybridconnector.write;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * The pool that write-behind buffers come from: Netty's jemalloc-style allocator (shaded into the connector jar, so
 * it never meets an application's own Netty), direct memory only, one arena per event loop.
 */
public final class WriteBehindMemory {

    private static final int PAGE_SIZE = 8192;
    /** 8 KB pages, chunks of 8 KB &lt;&lt; 9 = 4 MB. */
    private static final int MAX_ORDER = 9;

    static {
        // Buffers are released on well-defined paths (drained, or the connection closed); sampling every
        // allocation for leaks would cost the hot path for nothing.
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    private WriteBehindMemory() {
    }

    public static ByteBufAllocator newAllocator(int arenas) {
        return new PooledByteBufAllocator(true, 0, Math.max(1, arenas), PAGE_SIZE, MAX_ORDER, 256, 64, true);
    }
}
