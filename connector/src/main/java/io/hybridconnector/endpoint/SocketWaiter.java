package io.hybridconnector.endpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * Waits, on the calling thread, until one socket is readable or writable, with a deadline. Each thread that ever
 * waits owns one small selector for this, so a request that must wait for its socket never needs a round trip
 * through another thread: the thread that holds the request sleeps in {@code epoll_wait} on that one socket and
 * resumes the moment the kernel can take (or give) bytes. No user-space retry loop, no spinning.
 * <p>
 * Thread-confined: one instance per thread, via {@link #current()}.
 */
final class SocketWaiter {

    private static final ThreadLocal<SocketWaiter> WAITERS = ThreadLocal.withInitial(SocketWaiter::new);

    private final Selector selector;

    private SocketWaiter() {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static SocketWaiter current() {
        return WAITERS.get();
    }

    /**
     * @param timeoutMillis the deadline in milliseconds; zero or negative waits without limit
     * @return {@code true} if the socket became ready, {@code false} if the deadline passed first
     */
    boolean await(SocketChannel channel, int op, long timeoutMillis) throws IOException {
        SelectionKey key = channel.keyFor(selector);
        if (key == null || !key.isValid()) {
            if (key != null) {
                selector.selectNow(); // flush the cancelled key before registering again
            }
            key = channel.register(selector, op);
        } else {
            key.interestOps(op);
        }
        try {
            long deadline = timeoutMillis > 0 ? System.currentTimeMillis() + timeoutMillis : Long.MAX_VALUE;
            while (true) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                int n = selector.select(timeoutMillis > 0 ? left : 0);
                selector.selectedKeys().clear();
                if (n > 0) {
                    return true;
                }
                if (Thread.interrupted()) {
                    throw new IOException("Interrupted while waiting for the socket");
                }
            }
        } finally {
            if (key.isValid()) {
                // Disarm: applied at this selector's next select, so it costs nothing now.
                key.interestOps(0);
            }
        }
    }
}
