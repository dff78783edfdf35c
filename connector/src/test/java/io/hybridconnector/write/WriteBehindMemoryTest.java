package io.hybridconnector.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

import org.junit.jupiter.api.Test;

/**
 * The pool gives its memory back once a burst of pending responses has drained (issue 16: after 100 slow readers the
 * server kept 79 MB of direct memory it no longer used). Two things kept it: every thread's cache of small buffers,
 * and the empty small-size pages an arena keeps one of per size class, each holding its whole 4 MB chunk.
 */
class WriteBehindMemoryTest {

    private static final int LIMIT = 256 * 1024;
    private static final int ARENAS = 2;
    private static final int CHUNK = 4 * 1024 * 1024;

    @Test
    void aDrainedBurstLeavesAtMostOneChunkPerArena() throws Exception {
        ByteBufAllocator allocator = WriteBehindMemory.newAllocator(ARENAS);
        WriteCounters counters = new WriteCounters();
        ExecutorService requestThreads = Executors.newFixedThreadPool(32);
        try {
            for (int burst = 0; burst < 3; burst++) {
                // 100 responses held in full, each grown as a slow reader's response grows: in writes of 8 KB.
                List<Future<WriteBehindBuffer>> held = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    held.add(requestThreads.submit(() -> {
                        WriteBehindBuffer behind = new WriteBehindBuffer(allocator, LIMIT, counters);
                        ByteBuffer write = ByteBuffer.allocate(8192);
                        while (behind.room() > 0) {
                            write.clear();
                            behind.append(write);
                        }
                        return behind;
                    }));
                }
                List<Future<?>> closed = new ArrayList<>();
                for (Future<WriteBehindBuffer> f : held) {
                    WriteBehindBuffer behind = f.get();
                    closed.add(requestThreads.submit(behind::close)); // the connections close on other threads
                }
                for (Future<?> f : closed) {
                    f.get();
                }
                assertEquals(0, counters.getWriteBehindBytes());
                long kept = ((PooledByteBufAllocator) allocator).metric().usedDirectMemory();
                assertTrue(kept <= (long) ARENAS * CHUNK, "burst " + burst + ": the pool kept " + kept / 1024
                        + " KB of direct memory after every buffer went back; at most one chunk per arena ("
                        + ARENAS * CHUNK / 1024 + " KB) may stay");
            }
        } finally {
            requestThreads.shutdownNow();
        }
    }
}
