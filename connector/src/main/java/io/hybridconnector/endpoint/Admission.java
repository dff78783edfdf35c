package io.hybridconnector.endpoint;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import io.hybridconnector.loop.EventLoop;

import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * Admission under {@code maxConnections}: the acceptor's wait for a client, and at the limit the eviction of the
 * least-recently-used idle keep-alive connection to make room (DESIGN.md, "Idle connections"). Never a connection
 * inside a request: only idle ones are candidates, and the victim's loop closes it only if it is still idle.
 * <p>
 * Threads: the acceptor thread ({@link #awaitClient}, {@link #awaitRoom}); with {@code acceptMode="loops"}, the leader
 * of the loop that accepted ({@link #admitOnLoop}); any thread for the wake-ups ({@link #connectionIdle},
 * {@link #connectionClosed}, {@link #wakeup}).
 */
final class Admission {

    /** At {@code maxConnections}, the acceptor re-checks at least this often even if no event woke it. */
    private static final long BACKSTOP_MILLIS = 1000;

    private final ListeningEndpoint endpoint;
    /**
     * The acceptor waits for clients here, so that it can tell when one is waiting at maxConnections. Opened at bind
     * (lifecycle thread), then the acceptor's; closed when the server socket is.
     */
    private volatile Selector selector;
    /** The listening socket's key in {@link #selector}. Acceptor thread only (after bind). */
    private SelectionKey acceptKey;
    /**
     * The acceptor holds a client at {@code maxConnections}: a connection that closes or goes idle wakes it (its
     * selector). Written by the acceptor, read by any thread.
     */
    private volatile boolean waiting;
    /** Loops stopped accepting at {@code maxConnections} ({@code acceptMode="loops"}); any thread reads it. */
    private volatile boolean loopsHolding;
    /** Serialises the loops' admissions ({@code acceptMode="loops"}): the count and the limit checked together. */
    private final Object loopAdmission = new Object();

    Admission(ListeningEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** At bind: watches the listening socket. */
    void open(ServerSocketChannel serverSocket) throws IOException {
        Selector sel = Selector.open();
        acceptKey = serverSocket.register(sel, SelectionKey.OP_ACCEPT);
        selector = sel;
    }

    void close() throws IOException {
        Selector sel = selector;
        if (sel != null) {
            sel.close();
        }
    }

    /** Wakes the acceptor from any wait here (pause, stop). Any thread. */
    void wakeup() {
        Selector sel = selector;
        if (sel != null) {
            sel.wakeup();
        }
    }

    /** Waits for the listening socket to have a client; a blocking {@code accept()} would not let it be woken. */
    void awaitClient() throws IOException {
        selector.select();
        selector.selectedKeys().clear();
    }

    /**
     * At {@code maxConnections}, closes the least-recently-used idle keep-alive connection to make room, instead of
     * leaving the new client waiting; returns once below the limit (or paused, or stopped). Acceptor thread only.
     * <p>
     * Waits on events only, on the acceptor's selector (issue 16: it polled with {@code select(10)},
     * {@code sleep(10)} and {@code sleep(1)}): a client arriving (the listening socket's readiness), a connection
     * closing or going idle ({@link #connectionClosed}, {@link #connectionIdle}: a wake-up while the acceptor holds a
     * client, nothing otherwise), a pause or a stop ({@link #wakeup}). Without a waiting client nothing is evicted;
     * without an idle connection the client waits, as with Tomcat's own endpoints, until one closes or goes idle.
     */
    void awaitRoom() {
        try {
            while (atLimit() && endpoint.isRunning() && !endpoint.isPaused()) {
                if (!awaitEvent(SelectionKey.OP_ACCEPT) || !atLimit()) {
                    continue;
                }
                // A client waits: make room if an idle connection allows, then wait for what changes. Only now do
                // closes and idle connections wake the acceptor, so that a server at its limit with no client waiting
                // pays nothing per request.
                waiting = true;
                try {
                    evictLeastRecentlyUsedIdle(null);
                    awaitEvent(0);
                } finally {
                    waiting = false;
                }
            }
        } finally {
            setAcceptInterest(SelectionKey.OP_ACCEPT);
        }
    }

    /**
     * A loop accepted a client: admits it under {@code maxConnections}. At the limit, makes room by closing the
     * least-recently-used idle connection of any loop, as the acceptor thread does: at once if it is this loop's, or by
     * its own loop, whose close wakes the holding loop again (this loop's own idlest closed instead before, so which
     * connection went depended on which loop the client reached). With no idle connection anywhere the client is not
     * admitted: the loop holds it and stops accepting, and the clients behind it wait in the listening socket's
     * backlog, as they wait on stock NIO, until a connection closes or goes idle ({@link #connectionClosed},
     * {@link #connectionIdle}) or the loop's once-a-second backstop tries again. Leader only.
     *
     * @return whether the client is admitted (and counted)
     */
    boolean admitOnLoop(EventLoop loop) {
        if (atLimit()) {
            evictLeastRecentlyUsedIdle(loop);
        }
        synchronized (loopAdmission) {
            if (atLimit()) {
                loopsHolding = true;
                return false;
            }
            try {
                endpoint.countUpBelowLimit(); // below the limit and serialised: returns at once
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return true;
        }
    }

    /** A connection went idle (between requests, nothing behind): wakes whoever holds a client at the limit. */
    void connectionIdle() {
        wakeHolders();
    }

    /** A connection closed: a place is free (once the close counts down) for a client held at the limit. */
    void connectionClosed() {
        wakeHolders();
    }

    /** Two volatile reads unless someone holds a client at {@code maxConnections}. Any thread. */
    private void wakeHolders() {
        if (waiting) {
            selector.wakeup();
        }
        if (loopsHolding) {
            loopsHolding = false;
            endpoint.resumeLoopAccepting();
        }
    }

    private boolean atLimit() {
        int max = endpoint.getMaxConnections();
        return max > 0 && endpoint.getConnectionCount() >= max;
    }

    /**
     * Waits on the acceptor's selector: for a client ({@code OP_ACCEPT}), or only for a wake-up ({@code 0}: a close, a
     * connection going idle, a pause or a stop). The timeout is a backstop, not a poll: every event wakes it.
     *
     * @return whether a client is waiting in the backlog
     */
    private boolean awaitEvent(int interest) {
        try {
            setAcceptInterest(interest);
            int n = selector.select(BACKSTOP_MILLIS);
            selector.selectedKeys().clear();
            return n > 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void setAcceptInterest(int interest) {
        SelectionKey k = acceptKey;
        if (k != null && k.isValid() && k.interestOps() != interest) {
            k.interestOps(interest);
        }
    }

    /**
     * Closes the least-recently-used idle connection of any loop, if it is still idle then: at once when the caller
     * leads its loop, else by a task to that loop.
     *
     * @param leading the loop the caller leads; {@code null} on the acceptor thread
     */
    private void evictLeastRecentlyUsedIdle(EventLoop leading) {
        HybridSocketWrapper victim = leastRecentlyUsedIdle();
        if (victim == null) {
            return;
        }
        if (victim.loop() == leading) {
            victim.closeIfIdle();
        } else {
            victim.loop().submit(() -> {
                victim.closeIfIdle();
                return true;
            });
        }
    }

    /**
     * The one LRU scan (the acceptor's and the loops' were two near-identical copies before issue 18), over every loop.
     *
     * @return the idle connection read from longest ago, or {@code null}
     */
    private HybridSocketWrapper leastRecentlyUsedIdle() {
        HybridSocketWrapper lru = null;
        for (SocketWrapperBase<SocketChannel> w : endpoint.liveConnections()) {
            HybridSocketWrapper hw = (HybridSocketWrapper) w;
            if (hw.isIdle() && !hw.isClosed() &&
                    (lru == null || hw.getLastRead() < lru.getLastRead())) {
                lru = hw;
            }
        }
        return lru;
    }
}
