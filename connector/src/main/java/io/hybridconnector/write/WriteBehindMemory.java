package io.hybridconnector.write;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * The pool that write-behind buffers come from: Netty's jemalloc-style allocator (shaded into the connector jar, so
 * it never meets an application's own Netty), direct memory only, one arena per event loop.
 * <p>
 * The first class of the connector to touch the shaded Netty, so it is the one that tells it, before any of its
 * classes starts, not to use {@code sun.misc.Unsafe} where the JVM would warn about it (issue 17, see
 * {@link #avoidUnsafeWhereTheJvmWarns}).
 */
public final class WriteBehindMemory {

    private static final int PAGE_SIZE = 8192;
    /** 8 KB pages, chunks of 8 KB &lt;&lt; 9 = 4 MB. */
    private static final int MAX_ORDER = 9;
    /**
     * The smallest buffer taken from the pool: four pages, the pool's smallest size served from a run of whole pages
     * rather than from a shared small-size page. Such pages stay in the arena when empty and keep their chunk.
     */
    static final int MIN_BUFFER = 4 * PAGE_SIZE;
    /**
     * The shaded Netty's switch. Written as Netty names it: the jar's relocation rewrites this constant as it rewrites
     * the one Netty reads ({@code io.hybridconnector.shaded.netty.noUnsafe} in the jar), so an application's own
     * Netty is never affected, and the tests, which run the classes before relocation, set the name their Netty reads.
     */
    private static final String NO_UNSAFE = "io.netty.noUnsafe";
    /** Set by the JVM from {@code --sun-misc-unsafe-memory-access}; Netty already honours it. */
    private static final String UNSAFE_MEMORY_ACCESS = "sun.misc.unsafe.memory.access";
    /** Netty's leak detection level; relocated in the jar like {@link #NO_UNSAFE}. */
    private static final String LEAK_DETECTION_LEVEL = "io.netty.leakDetection.level";
    /** The older name Netty still reads. */
    private static final String LEAK_DETECTION_LEVEL_OLD = "io.netty.leakDetectionLevel";
    /** JEP 498: from this release on, the JVM prints a warning the first time Unsafe's memory access is used. */
    private static final int FIRST_JDK_THAT_WARNS = 24;

    static {
        avoidUnsafeWhereTheJvmWarns();
        quietLeakDetectionUnlessAsked();
    }

    private WriteBehindMemory() {
    }

    /**
     * From Java 24 on, Netty 4.1's first use of {@code sun.misc.Unsafe} makes the JVM print four {@code WARNING:} lines
     * on stderr as the connector starts, which an operator can only silence with a JVM flag. Without Unsafe the pool
     * hands out the same direct memory through {@link java.nio.ByteBuffer}s, and write-behind's copies in and writes
     * out are the same bulk operations; what changes is that memory the pool gives back (a chunk it emptied, a buffer
     * larger than a chunk, with {@code writeBehindLimit} above 4 MB) is freed by the garbage collector rather than at
     * once. Java 17 to 23 are left as they were. An operator's own choice wins: the switch
     * set either way, or Unsafe allowed with {@code --sun-misc-unsafe-memory-access=allow} (no warning then).
     */
    private static void avoidUnsafeWhereTheJvmWarns() {
        if (Runtime.version().feature() >= FIRST_JDK_THAT_WARNS && System.getProperty(NO_UNSAFE) == null
                && System.getProperty(UNSAFE_MEMORY_ACCESS) == null) {
            System.setProperty(NO_UNSAFE, "true");
        }
    }

    /**
     * Buffers are released on well-defined paths (drained, or the connection closed), so sampling allocations for
     * leaks would cost the hot path for nothing; off unless the operator (or a test suite hunting leaks) asked for a
     * level, which then holds.
     */
    private static void quietLeakDetectionUnlessAsked() {
        if (System.getProperty(LEAK_DETECTION_LEVEL) == null && System.getProperty(LEAK_DETECTION_LEVEL_OLD) == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /**
     * One arena per loop and no per-thread caches. A burst of slow readers must leave no memory behind once it has
     * drained (issue 16: 100 of them left 79 MB of direct memory with the pool's defaults), and two things in Netty's
     * pool keep chunks alive after every buffer went back: the caches every thread that ever freed a small buffer
     * keeps (here any request thread), and the one empty page per small size class an arena keeps, each pinning its
     * whole chunk. Without the caches and with no buffer smaller than {@link #MIN_BUFFER} (see
     * {@link WriteBehindBuffer}), an emptied chunk is freed, but for at most the one each arena is still filling.
     * Allocations are rare (a write the kernel did not take in full), so the arena's lock a cache would spare costs
     * nothing measurable.
     */
    public static ByteBufAllocator newAllocator(int arenas) {
        return new PooledByteBufAllocator(true, 0, Math.max(1, arenas), PAGE_SIZE, MAX_ORDER, 0, 0, false);
    }
}
