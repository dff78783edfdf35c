package io.hybridconnector.write;

import java.io.IOException;

/**
 * A layer under the writer that may hold bytes of its own after a write returned: TLS records the kernel did not
 * take. For the connector those bytes are "behind" like any other: {@link WriteBehindBuffer#isEmpty()} is false while
 * they wait, and {@link WriteBehindBuffer#writeTo} sends them before anything else.
 * <p>
 * Not thread-safe: used under the connection's lock.
 */
public interface PendingOutput {

    /** @return whether bytes are held below the plaintext, waiting for the kernel */
    boolean hasPendingOutput();

    /**
     * One attempt to hand the held bytes to the kernel, never waiting.
     *
     * @return the bytes the kernel took
     */
    int flushPendingOutput() throws IOException;
}
