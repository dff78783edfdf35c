package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * {@code writeStrategy="hybrid"}, the default, the paper's HybridNetty done fully: a light response (its class fits the
 * socket, or was never looked up) leaves in one direct write with no bookkeeping; what the kernel does not take, and
 * every large write of a class learnt to be heavy, is copied into the connection's bounded {@link WriteBehindBuffer},
 * which the loop flushes on writability ({@link WriteBehindFlusher}): the writing thread is free at once. Only at the
 * bound does the writer wait for writability ({@link #AWAIT_WRITABLE}, with the write deadline). Runs on the writing
 * thread, under the connection's lock.
 * <p>
 * A heavy class's write is copied once into direct memory and written from there, because the JDK copies the unsent
 * rest of a heap buffer again on every partial write; the class hears whether its response fitted the socket
 * ({@link RequestClass#fitted}, {@link RequestClass#leftBehind}).
 */
final class HybridWrite implements BlockingWrite {

    private final ResponseWriter writer;
    private final WriteBehindBuffer behind;
    /** Between the calls of one write: its first call wrote directly and left the rest behind. */
    private boolean wroteDirectly;
    /** Between the calls of one write: behind was empty when it began, so it writes once and judges its class. */
    private boolean firstAttempt;

    HybridWrite(ResponseWriter writer) {
        this.writer = writer;
        this.behind = writer.behind;
    }

    @Override
    public boolean usesRequestClass() {
        return true;
    }

    @Override
    public int write(ByteBuffer head, ByteBuffer body, RequestClass requestClass, boolean resumed)
            throws IOException {
        if (!resumed) {
            wroteDirectly = behind.isEmpty() && (requestClass == null || !requestClass.isHeavy());
            if (wroteDirectly) {
                writer.writeOnce(head, body);
                writer.counters.directWrite();
                if (ResponseWriter.remaining(head, body) == 0) {
                    if (requestClass != null) {
                        requestClass.fitted();
                    }
                    return DONE;
                }
                if (requestClass != null) {
                    requestClass.leftBehind();
                }
            } else {
                firstAttempt = behind.isEmpty();
            }
        }
        if (!leaveBehind(head) || !leaveBehind(body)) {
            return AWAIT_WRITABLE;
        }
        if (wroteDirectly) {
            writer.counters.handedToWriteBehind();
            return DONE;
        }
        if (firstAttempt) {
            behind.writeTo(writer.channel);
            if (requestClass != null) {
                if (behind.isEmpty()) {
                    requestClass.fitted();
                } else {
                    requestClass.leftBehind();
                }
            }
        }
        if (!behind.isEmpty()) {
            writer.counters.handedToWriteBehind();
        }
        return DONE;
    }

    /**
     * Copies into the write-behind buffer; at its bound, writes from it while the kernel takes bytes.
     *
     * @return {@code false} if the bound is reached and the kernel took nothing: the writer must wait
     */
    private boolean leaveBehind(ByteBuffer src) throws IOException {
        if (src == null) {
            return true;
        }
        while (src.hasRemaining()) {
            behind.append(src);
            if (src.hasRemaining() && behind.writeTo(writer.channel) == 0) {
                return false;
            }
        }
        return true;
    }
}
