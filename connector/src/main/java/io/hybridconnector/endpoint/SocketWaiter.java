package io.hybridconnector.endpoint;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.hybridconnector.loop.LoopThread;

/**
 * Waits, on the calling thread, until one socket is readable or writable, with a deadline. Each connector thread
 * ({@link LoopThread}) that ever waits owns one small selector for this, so a request that must wait for its socket
 * never needs a round trip through another thread: the thread that holds the request sleeps in {@code epoll_wait} on
 * that one socket and resumes the moment the kernel can take (or give) bytes. No user-space retry loop, no spinning.
 * <p>
 * Descriptors (issue 16): a waiter holds none of the sockets it waited on once {@link #await} returns (the key is
 * cancelled and flushed at once: a channel registered with a selector keeps its descriptor open after a close until
 * that selector selects again), and a connector thread closes its waiter when it exits. Before, every pool thread that
 * exited left an epoll and an eventfd descriptor behind, plus the last socket it waited on. Any other thread (an
 * application's thread writing an async response) gets a waiter for one wait, closed after it: such threads come and
 * go without telling us.
 * <p>
 * Release: a close by another thread wakes the wait ({@link #wakeup}, from the connection's close), which then fails
 * with {@link ClosedChannelException}; a stop that shut sockets down wakes every wait on them
 * ({@link #wakeWaitersOn}), which then returns and the caller's read or write fails at once.
 * <p>
 * Thread-confined (but {@link #wakeup} and {@link #wakeWaitersOn}): one instance per connector thread, via
 * {@link #current()}.
 */
final class SocketWaiter implements Closeable {

    private static final ThreadLocal<SocketWaiter> WAITERS = new ThreadLocal<>();

    /** Waiters inside {@link #await}, so that a stop can wake them. Slow path only: a wait costs a syscall anyway. */
    private static final Set<SocketWaiter> AWAITING = ConcurrentHashMap.newKeySet();

    private final Selector selector;
    /** Closed after its one wait: the caller is not a connector thread, whose exit we would see. */
    private final boolean oneShot;
    /** The socket this waiter waits for, while it does; written by its thread, read by a stopping thread. */
    private volatile SocketChannel awaiting;
    /** Set by a stopping thread that shut {@link #awaiting} down: the wait ends. */
    private volatile boolean released;

    private SocketWaiter(boolean oneShot) {
        this.oneShot = oneShot;
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the calling connector thread's waiter (closed when the thread exits), or a waiter for one wait */
    static SocketWaiter current() {
        LoopThread thread = LoopThread.current();
        if (thread == null) {
            return new SocketWaiter(true);
        }
        SocketWaiter waiter = WAITERS.get();
        if (waiter == null) {
            waiter = new SocketWaiter(false);
            WAITERS.set(waiter);
            thread.closeOnExit(waiter);
        }
        return waiter;
    }

    /**
     * @param timeoutMillis the deadline in milliseconds; zero or negative waits without limit
     * @return {@code true} if the socket became ready (or a stop shut it down: the caller's read or write then fails
     *         at once), {@code false} if the deadline passed first
     * @throws ClosedChannelException if the socket was closed (by another thread) before or while waiting
     */
    boolean await(SocketChannel channel, int op, long timeoutMillis) throws IOException {
        released = false;
        awaiting = channel;
        AWAITING.add(this);
        try {
            SelectionKey key = channel.register(selector, op);
            try {
                return select(key, timeoutMillis);
            } finally {
                // Deregister now, not at this selector's next select (which may be an hour away, or never): until
                // then a socket closed meanwhile keeps its descriptor. Costs one epoll_ctl and one epoll_wait(0).
                key.cancel();
                selector.selectNow();
                selector.selectedKeys().clear();
            }
        } finally {
            AWAITING.remove(this);
            awaiting = null;
            if (oneShot) {
                close();
            }
        }
    }

    private boolean select(SelectionKey key, long timeoutMillis) throws IOException {
        long deadline = timeoutMillis > 0 ? System.currentTimeMillis() + timeoutMillis : Long.MAX_VALUE;
        while (true) {
            if (released) {
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
            if (!key.isValid()) {
                // Closed by another thread (a stop, a sweep): nothing will be reported, do not wait out the deadline.
                throw new ClosedChannelException();
            }
            // An interrupt (Tomcat's StuckThreadDetectionValve sends them) makes select return at once; as stock NIO's
            // blocking read does, swallow it and wait on until the deadline, so a slow but live client completes.
            Thread.interrupted();
        }
    }

    /**
     * Wakes the wait in progress, if any, so that it sees a close made by another thread at once (a cancelled key
     * does not wake a selector). Any thread.
     */
    void wakeup() {
        selector.wakeup();
    }

    /**
     * Wakes the threads waiting for any of {@code channels}, which the caller shut down: they return at once and
     * their read or write fails. A waiter that registers after this call selects on a socket already shut down both
     * ways, which the kernel reports ready (end of stream, hang-up). A wake-up that reaches a waiter already waiting
     * for another socket only makes it look again. Any thread.
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

    /** Closes the selector. Its own thread only (at exit), or after a one-shot wait. */
    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // Nothing registered is left; the descriptors are released or never will be.
        }
    }
}
