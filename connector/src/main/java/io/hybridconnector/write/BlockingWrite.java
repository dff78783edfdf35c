package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * One write strategy: how a response write for a caller with blocking semantics (a servlet's {@code OutputStream})
 * meets a socket that cannot take the whole response at once. One implementation per strategy, one instance per
 * connection, made by its {@link WriteStrategy} constant; {@link ResponseWriter#write} drives it. Runs on the thread
 * writing the response, under the connection's lock (or as a writer without it, counted by the connection).
 * <p>
 * <b>Contract</b>, in the manner of Netty's {@code AbstractNioByteChannel.doWrite}: a call makes system calls while
 * they are worth making and returns how it stopped; it <i>never waits</i> and never loops on a write that moved
 * nothing. What happens next is decided in one place, {@link ResponseWriter#write} (Netty's {@code incompleteWrite}):
 * <table>
 * <caption>return values</caption>
 * <tr><th>value</th><th>means</th><th>who waits for what</th></tr>
 * <tr><td>{@link #DONE}</td><td>every byte of {@code head} and {@code body} has left the caller's buffers: in the
 * kernel, or (only a strategy that uses it) in the connection's {@link WriteBehindBuffer}</td><td>nobody: the caller
 * returns. Bytes behind are the loop's: the run's end arms {@code OP_WRITE} and {@link WriteBehindFlusher} sends
 * them on writability</td></tr>
 * <tr><td>{@link #AWAIT_WRITABLE}</td><td>the strategy needs the kernel to take bytes before it can go on, and it took
 * none (or the strategy's quantum of writes is used up)</td><td>the calling thread waits for writability on its own
 * {@code SocketWaiter}, with the write deadline, handing its loop over first ({@link ResponseWriter.Waiter}); then
 * calls again. At the deadline the socket stays failed and the wait throws</td></tr>
 * <tr><td>{@link #RETRY_MOVED}</td><td>bytes are left, the last write moved some</td><td>nobody: called again at
 * once (a spin, counted)</td></tr>
 * <tr><td>{@link #RETRY_STALLED}</td><td>bytes are left, the last write moved none</td><td>nobody: called again at
 * once (a spin, counted) until no byte has moved for the write deadline; then the socket stays failed and the write
 * throws</td></tr>
 * </table>
 * A call after anything but {@code DONE} gets the same buffers, on the same thread, with {@code resumed} set; the
 * strategy may keep what it needs between such calls in its own fields.
 * <p>
 * Adding a strategy: one class implementing this, and its name in {@link WriteStrategy}.
 */
public interface BlockingWrite {

    /** Every byte has left the caller's buffers. */
    int DONE = 0;
    /** Wait for writability (with the write deadline), then call again. */
    int AWAIT_WRITABLE = 1;
    /** Call again at once; the last write moved bytes. */
    int RETRY_MOVED = 2;
    /** Call again at once; the last write moved nothing (the write deadline runs). */
    int RETRY_STALLED = 3;

    /**
     * Writes {@code head} (may be {@code null}), then {@code body}, as far as this strategy goes without waiting.
     *
     * @param requestClass the response's class when the caller looked it up ({@link #usesRequestClass()}), else
     *                     {@code null}
     * @param resumed      {@code false} on the first call for these buffers, {@code true} on the calls after
     *                     {@link #AWAIT_WRITABLE} or a retry
     * @return {@link #DONE}, {@link #AWAIT_WRITABLE}, {@link #RETRY_MOVED} or {@link #RETRY_STALLED}
     */
    int write(ByteBuffer head, ByteBuffer body, RequestClass requestClass, boolean resumed) throws IOException;

    /**
     * @return whether large writes should be given their response's class (a classifier lookup: method and path,
     *         refined by the query); only then does the caller pay for it
     */
    default boolean usesRequestClass() {
        return false;
    }
}
