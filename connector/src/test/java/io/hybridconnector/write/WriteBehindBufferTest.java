package io.hybridconnector.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;

import io.netty.buffer.ByteBufAllocator;

import org.junit.jupiter.api.Test;

/**
 * A close never releases write-behind memory under a write that uses it, and nothing is taken from the pool after it
 * (issue 16: a close from another thread released the buffer whatever the writer was doing, or not at all).
 */
class WriteBehindBufferTest {

    private final ByteBufAllocator allocator = WriteBehindMemory.newAllocator(1);
    private final WriteCounters counters = new WriteCounters();
    private final WriteBehindBuffer behind = new WriteBehindBuffer(allocator, 256 * 1024, counters);

    /** A socket that takes {@code n} bytes per write and runs {@code during} inside the write (another thread's close). */
    private static GatheringByteChannel socket(int n, Runnable during) {
        return new PartialSocket(() -> n, during);
    }

    @Test
    void aCloseDuringAWriteReleasesWhenTheWriteEnds() throws Exception {
        behind.append(ByteBuffer.allocate(100_000));
        assertEquals(100_000, counters.getWriteBehindBytes());
        int n = behind.writeTo(socket(1000, behind::close));
        assertEquals(1000, n);
        assertEquals(0, counters.getWriteBehindBytes(), "memory held after the close");
        assertTrue(behind.isEmpty());
        assertThrows(ClosedChannelException.class, () -> behind.append(ByteBuffer.allocate(10)),
                "memory taken from the pool after the close");
        assertEquals(0, counters.getWriteBehindBytes());
    }

    @Test
    void aCloseBetweenWritesReleasesAtOnce() throws Exception {
        behind.append(ByteBuffer.allocate(100_000));
        behind.writeTo(socket(1000, () -> { }));
        behind.close();
        assertEquals(0, counters.getWriteBehindBytes());
        behind.close(); // twice: nothing more
        assertEquals(0, counters.getWriteBehindBytes());
    }
}
