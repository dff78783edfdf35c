package io.hybridconnector.write;

import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.function.IntSupplier;

/**
 * A socket for the write path's tests, as one whose send buffer is nearly full: each write call takes at most what
 * {@code takes} says at that moment, and runs {@code inside} first (another thread's close, say). No kernel.
 */
final class PartialSocket implements GatheringByteChannel {

    private final IntSupplier takes;
    private final Runnable inside;

    PartialSocket(IntSupplier takes, Runnable inside) {
        this.takes = takes;
        this.inside = inside;
    }

    PartialSocket(int takes) {
        this(() -> takes, () -> { });
    }

    @Override
    public int write(ByteBuffer src) {
        inside.run();
        int k = Math.min(takes.getAsInt(), src.remaining());
        src.position(src.position() + k);
        return k;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += write(srcs[i]);
        }
        return total;
    }

    @Override
    public long write(ByteBuffer[] srcs) {
        return write(srcs, 0, srcs.length);
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close() {
    }
}
