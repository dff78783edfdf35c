package io.hybridconnector.endpoint;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import io.hybridconnector.loop.EventLoop;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * Admission under {@code maxConnections}: the acceptor's wait for a client, and at the limit the eviction of the
 * least-recently-used idle keep-alive connection to make room (DESIGN.md, "Idle connections"). Never a connection
 * inside a request: only idle ones are candidates, and the victim's loop closes it only if it is still idle. The same
 * eviction when an accept fails for lack of file descriptors ({@link #freeDescriptor}): the process's descriptor limit
 * is a connection limit too, one {@code maxConnections} does not see.
 * <p>
 * Threads: the acceptor thread ({@link #awaitClient}, {@link #awaitRoom}, {@link #awaitDescriptor}); with
 * {@code acceptMode="loops"}, the leader of the loop that accepted ({@link #admitOnLoop}, {@link #freeDescriptor});
 * any thread for the wake-ups ({@link #connectionIdle}, {@link #connectionClosed}, {@link #wakeup}); the lifecycle
 * thread for {@link #warnIfDescriptorsShort}.
 */
final class Admission {

    private static final Log log = LogFactory.getLog(HybridEndpoint.class);

    /** At {@code maxConnections}, the acceptor re-checks at least this often even if no event woke it. */
    private static final long BACKSTOP_MILLIS = 1000;
    /**
     * Descriptors kept for the JVM's own files beyond those open at start, in the start-up check: jars and classes
     * loaded later, log files, each connector thread's selector once it waits for a socket, an application's JDBC pool.
     */
    static final int DESCRIPTOR_MARGIN = 64;
    /** Out of descriptors, the WARN about evictions is repeated at most this often (with the count meanwhile). */
    private static final long DESCRIPTOR_WARN_INTERVAL_MILLIS = 60_000;

    /** {@link #freeDescriptor}: the victim was this loop's and is closed; its descriptor is free at the next select. */
    static final int EVICTED_HERE = 0;
    /** {@link #freeDescriptor}: another loop closes the victim; wait for its close to resume accepting. */
    static final int EVICTED_ELSEWHERE = 1;
    /** {@link #freeDescriptor}: an eviction's descriptor is about to be released; its loop accepts. */
    static final int RELEASE_PENDING = 2;
    /** {@link #freeDescriptor}: no idle connection; wait until one closes or goes idle. */
    static final int NOTHING_IDLE = 3;

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
    /**
     * The last connection closed because descriptors ran out, while its descriptor is not released yet: a closed
     * channel keeps its descriptor until its loop's selector selects again. Meanwhile, other accepts that fail wait for
     * it instead of closing one more idle connection each (every loop watching the listening socket fails at once).
     * Written under {@link #loopAdmission}; any thread reads it.
     */
    private volatile HybridSocketWrapper releasing;
    /** When {@link #releasing} was chosen ({@code System.currentTimeMillis()}); written under {@link #loopAdmission}. */
    private volatile long releasingSince;
    /** Evictions for descriptors since the last WARN about them, and when that was; under {@link #loopAdmission}. */
    private int descriptorEvictions;
    private long descriptorWarnMillis;

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

    /**
     * @return whether a failed {@code accept()} failed for lack of file descriptors: {@code EMFILE} (the process's
     *         limit) or {@code ENFILE} (the system's), which the JDK reports as "Too many open files" (and "... in
     *         system"). Such a client is still in the listening socket's backlog: closing a connection lets it in.
     *         Any thread (a pure check; the accepting thread calls it after a failed accept).
     */
    static boolean isOutOfDescriptors(IOException e) {
        String message = e.getMessage();
        return message != null && message.contains("Too many open files");
    }

    /**
     * An {@code accept()} failed for lack of file descriptors: closes the least-recently-used idle connection, as at
     * {@code maxConnections}, so that the client waiting in the backlog gets its descriptor (issue 39: with idle
     * keep-alive connections that never time out, new clients were locked out for good). Off the hot path: only
     * after a failed accept. Leader of {@code leading} (a loop's {@link LoopAcceptor}), or the acceptor thread
     * ({@code leading} is {@code null}, through {@link #awaitDescriptor}).
     * <p>
     * A closed channel keeps its descriptor until its loop's selector selects again (the JDK closes a registered
     * channel's descriptor when it deregisters), and that select deregisters it before it waits, so the loop that
     * closed the victim finds the listening socket ready with a descriptor free. Hence: a victim of the caller's own
     * loop is closed at once and the caller keeps accepting ({@link #EVICTED_HERE}); another loop's is closed by that
     * loop, and the caller holds until the close resumes every holding loop ({@link #EVICTED_ELSEWHERE}); while a
     * victim's descriptor is not released yet, a failed accept closes nothing more ({@link #RELEASE_PENDING}: every
     * loop watching the listening socket fails at once, and each would close a connection); with nothing idle the
     * caller holds until a connection closes or goes idle ({@link #NOTHING_IDLE}), as a client waits at
     * {@code maxConnections}.
     *
     * @param leading the loop the caller leads; {@code null} on the acceptor thread
     * @return {@link #EVICTED_HERE}, {@link #EVICTED_ELSEWHERE}, {@link #RELEASE_PENDING} or {@link #NOTHING_IDLE}
     */
    int freeDescriptor(EventLoop leading) {
        HybridSocketWrapper victim;
        synchronized (loopAdmission) {
            boolean holds = leading != null; // a loop holds when it does not keep accepting; the acceptor waits here
            if (releasePending()) {
                loopsHolding |= holds;
                return RELEASE_PENDING;
            }
            victim = leastRecentlyUsedIdle();
            releasing = victim;
            if (victim == null) {
                loopsHolding |= holds;
                return NOTHING_IDLE;
            }
            releasingSince = System.currentTimeMillis();
            noteDescriptorEviction();
            if (victim.loop() != leading) {
                loopsHolding |= holds; // the victim's close resumes the holding loops (connectionClosed)
            }
        }
        if (victim.loop() == leading) {
            victim.closeIfIdle();
            if (!victim.isClosed()) {
                released(victim); // busy again: the next failed accept picks another
            }
            return EVICTED_HERE;
        }
        victim.loop().submit(() -> {
            victim.closeIfIdle();
            if (!victim.isClosed()) {
                released(victim);
                wakeHolders(); // they try again, and pick another
            }
            return true;
        });
        return EVICTED_ELSEWHERE;
    }

    /**
     * Acceptor thread ({@code acceptMode="acceptor"}): an accept failed. Out of descriptors with an idle connection
     * to close, closes it ({@link #freeDescriptor}) and waits for its loop to release the descriptor, then the caller
     * accepts again. That loop releases it at its next select, right after the close; no event tells when, so the
     * wait looks every millisecond, for as long as that takes (a backstop of a second), and only in this state.
     *
     * @return {@code true} to accept again; {@code false}: another failure, or nothing idle (Tomcat's acceptor then
     *         logs it and backs off, as on stock NIO)
     */
    boolean awaitDescriptor(IOException e) {
        if (!isOutOfDescriptors(e) || freeDescriptor(null) == NOTHING_IDLE) {
            return false;
        }
        long deadline = System.currentTimeMillis() + BACKSTOP_MILLIS;
        try {
            setAcceptInterest(0); // the client in the backlog would end each wait at once
            while (releasePending() && System.currentTimeMillis() < deadline && endpoint.isRunning() &&
                    !endpoint.isPaused()) {
                selector.select(1);
                selector.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException ex) {
            return false;
        } finally {
            setAcceptInterest(SelectionKey.OP_ACCEPT);
        }
        return true;
    }

    /**
     * @return whether the last victim for descriptors still holds its descriptor: registered with its loop's selector
     *         (closed or about to be), for a second at most. Any thread.
     */
    private boolean releasePending() {
        HybridSocketWrapper r = releasing;
        return r != null && r.getSocket().isRegistered() &&
                System.currentTimeMillis() - releasingSince <= BACKSTOP_MILLIS;
    }

    /**
     * The victim was not closed (busy again): the next failed accept may pick another. The thread that tried to close
     * it, its loop's leader.
     */
    private void released(HybridSocketWrapper victim) {
        synchronized (loopAdmission) {
            if (releasing == victim) {
                releasing = null;
            }
        }
    }

    /**
     * Counts an eviction for descriptors and WARNs about it, the first at once and then at most once a minute, with
     * the count since the last message. Under {@link #loopAdmission}.
     */
    private void noteDescriptorEviction() {
        descriptorEvictions++;
        long now = System.currentTimeMillis();
        if (descriptorWarnMillis != 0 && now - descriptorWarnMillis < DESCRIPTOR_WARN_INTERVAL_MILLIS) {
            return;
        }
        String what = descriptorWarnMillis == 0 ?
                "closed the least recently used idle connection to serve the new client, as at maxConnections (" +
                        endpoint.getMaxConnections() + "); further such closes are logged once a minute at most" :
                descriptorEvictions + " idle connections closed to serve new clients since the last such message";
        log.warn("Out of file descriptors (\"Too many open files\") accepting a connection on [" + endpoint.getName() +
                "] with " + endpoint.getConnectionCount() + " connections open: " + what + ". The process's limit " +
                "is " + descriptorLimit() + " open files: raise it (ulimit -n, systemd's LimitNOFILE) or lower " +
                "maxConnections");
        descriptorEvictions = 0;
        descriptorWarnMillis = now;
    }

    /**
     * At start: WARNs when {@code maxConnections} exceeds what the process's descriptor limit allows (the soft limit
     * the JVM runs with, less the descriptors open now and {@link #DESCRIPTOR_MARGIN} for the JVM's own files), naming
     * the setting, both numbers and what happens instead. Once per start; reads {@code /proc/self/fd} once. Lifecycle
     * thread.
     */
    void warnIfDescriptorsShort() {
        long limit = descriptorLimit();
        long open = openDescriptors();
        if (limit <= 0 || open < 0) {
            return; // not a Unix JVM, or the JDK does not say
        }
        long fit = Math.max(0, limit - open - DESCRIPTOR_MARGIN);
        int max = endpoint.getMaxConnections();
        if (max > 0 && max <= fit) {
            return;
        }
        log.warn("maxConnections=" + (max > 0 ? Integer.toString(max) : max + " (no limit)") + " on [" +
                endpoint.getName() + "] exceeds what this process's file descriptor limit allows: " + limit +
                " open files (ulimit -n), " + open + " open now, so about " + fit + " connections with " +
                DESCRIPTOR_MARGIN + " kept for the JVM's own files. Beyond that, accepting a connection fails for " +
                "lack of descriptors, and instead the least recently used idle keep-alive connection is closed to " +
                "serve the new client, as at maxConnections; with none idle the client waits in the listening " +
                "socket's backlog. Raise the limit (ulimit -n, systemd's LimitNOFILE) or set maxConnections to " +
                fit + " or less");
    }

    /**
     * @return the soft limit on open files the JVM runs with, or -1 if unknown (not Unix, no jdk.management). Any
     *         thread: one {@code getrlimit}, which needs no descriptor (it is read while they have run out).
     */
    static long descriptorLimit() {
        try {
            OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
                return ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount();
            }
        } catch (LinkageError | RuntimeException e) {
            // a runtime image without jdk.management
        }
        return -1;
    }

    /** @return the descriptors open now, or -1 if unknown: lists {@code /proc/self/fd}. Lifecycle thread, at start. */
    private static long openDescriptors() {
        try {
            OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
                return ((com.sun.management.UnixOperatingSystemMXBean) os).getOpenFileDescriptorCount();
            }
        } catch (LinkageError | RuntimeException e) {
            // as above
        }
        return -1;
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
