package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * {@code writeStrategy="spin"}, the paper's NettyServer: up to {@link #QUANTUM} progress-making writes in a row, then
 * wait for writability (so does a write the kernel answers with 0 bytes). Bounds the spin, but pays the bookkeeping on
 * every response. Never uses write-behind. Runs on the writing thread, under the connection's lock.
 */
final class SpinWrite implements BlockingWrite {

    /** Netty's default {@code writeSpinCount}. */
    static final int QUANTUM = 16;

    private final ResponseWriter writer;

    SpinWrite(ResponseWriter writer) {
        this.writer = writer;
    }

    @Override
    public int write(ByteBuffer head, ByteBuffer body, RequestClass requestClass, boolean resumed)
            throws IOException {
        for (int i = 0; i < QUANTUM; i++) {
            if (i > 0) {
                writer.counters.spin();
            }
            long n = writer.writeOnce(head, body);
            if (ResponseWriter.remaining(head, body) == 0) {
                return DONE;
            }
            if (n == 0) {
                break;
            }
        }
        return AWAIT_WRITABLE;
    }
}
