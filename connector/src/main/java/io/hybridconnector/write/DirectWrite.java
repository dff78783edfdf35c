package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * {@code writeStrategy="direct"}, the paper's SingleT-Async: one write per call, and the caller asks again at once
 * whatever the kernel answered (it spins in user space, on purpose), until no byte has moved for the write deadline
 * (issue 16: it retried forever for a client that stopped reading). Never uses write-behind. Runs on the writing
 * thread, under the connection's lock.
 */
final class DirectWrite implements BlockingWrite {

    private final ResponseWriter writer;

    DirectWrite(ResponseWriter writer) {
        this.writer = writer;
    }

    @Override
    public int write(ByteBuffer head, ByteBuffer body, RequestClass requestClass, boolean resumed)
            throws IOException {
        long n = writer.writeOnce(head, body);
        if (ResponseWriter.remaining(head, body) == 0) {
            return DONE;
        }
        return n > 0 ? RETRY_MOVED : RETRY_STALLED;
    }
}
