package io.hybridconnector.endpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Waits, on the calling thread, until one socket is readable or writable, with a deadline. Each thread that ever
 * waits owns one small selector for this, so a request that must wait for its socket never needs a round trip
 * through another thread: the thread that holds the request sleeps in {@code epoll_wait} on that one socket and
 * resumes the moment the kernel can take (or give) bytes. No user-space retry loop, no spinning.
 * <p>
 * Thread-confined: one instance per thread, via {@link #current()}; {@link #wakeWaitersOn} is for any thread (stop).
 */
final class SocketWaiter {

    private static final ThreadLocal<SocketWaiter> WAITERS = ThreadLocal.withInitial(SocketWaiter::new);

    /** Waiters inside {@link #await}, so that a stop can wake them. Slow path only: a wait costs a syscall anyway. */
    private static final Set<SocketWaiter> AWAITING = ConcurrentHashMap.newKeySet();

    private final Selector selector;
    /** The socket this waiter waits for, while it does; written by its thread, read by a stopping thread. */
    private volatile SocketChannel awaiting;
    /** Set by a stopping thread that shut {@link #awaiting} down: the wait ends. */
    private volatile boolean released;

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
     * @return {@code true} if the socket became ready (or was shut down or closed: the caller's read or write then
     *         fails at once), {@code false} if the deadline passed first
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
        released = false;
        awaiting = channel;
        AWAITING.add(this);
        try {
            long deadline = timeoutMillis > 0 ? System.currentTimeMillis() + timeoutMillis : Long.MAX_VALUE;
            while (true) {
                if (released || !channel.isOpen()) {
                    return true;
                }
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
            AWAITING.remove(this);
            awaiting = null;
            if (key.isValid()) {
                // Disarm: applied at this selector's next select, so it costs nothing now.
                key.interestOps(0);
            }
        }
    }

    /**
     * Wakes the threads waiting for any of {@code channels}, which the caller shut down: they return at once and
     * their read or write fails. A waiter that registers after this call selects on a socket already shut down both
     * ways, which the kernel reports ready (end of stream, hang-up). A wake-up that reaches a waiter already waiting
     * for another socket only makes it look again.
     */
    static void wakeWaitersOn(Collection<SocketChannel> channels) {
        for (SocketWaiter w : AWAITING) {
            SocketChannel c = w.awaiting;
            if (c != null && channels.contains(c)) {
                w.released = true;
                w.selector.wakeup();
            }
        }
    }
}
