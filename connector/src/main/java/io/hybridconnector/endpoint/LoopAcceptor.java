package io.hybridconnector.endpoint;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.LoopChannel;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * The listening socket as one loop sees it when loops accept for themselves ({@code acceptMode="loops"}; the idea:
 * seeds/000, future work): the leader that finds the socket acceptable accepts, and registers the new
 * connection with its own selector on the spot. No acceptor thread, no queue, no wake-up. Every loop watches the same
 * listening socket; the kernel hands each client to one of them.
 * <p>
 * Leader only, like every {@link LoopChannel}.
 */
final class LoopAcceptor implements LoopChannel {

    private static final Log log = LogFactory.getLog(LoopAcceptor.class);

    /**
     * Clients accepted per readiness event before the loop turns to its other connections. Few, so that a burst of
     * clients spreads over the loops the kernel woke instead of landing on the first one to wake.
     */
    private static final int ACCEPTS_PER_EVENT = 4;
    /**
     * Clients accepted per readiness event when the loop's last round was long ({@link EventLoop#backedUp}): it comes
     * back to the listening socket only once a round, so at 4 a client in the backlog waited a round for every 4
     * ahead of it. Under 3x overload (rounds of 300 ms, 555 clients connecting) 21-31 requests waited over 5 s there,
     * stock's acceptor thread none.
     */
    private static final int ACCEPTS_PER_EVENT_BACKED_UP = 64;

    private final HybridEndpoint endpoint;
    private final EventLoop loop;
    private final ServerSocketChannel server;
    private SelectionKey key;
    /**
     * Not accepting for now: at {@code maxConnections} with no idle connection to close, or after a failed accept (out
     * of descriptors: the listening socket stays ready, and accepting again at once would spin; or another loop closes
     * an idle connection to free a descriptor). The loop looks again when a connection closes or goes idle
     * ({@link #resumeIfHolding}), and at its next timeout sweep in any case, within a second: the back-off Tomcat's
     * acceptor takes after a failure. Leader only.
     */
    private boolean holding;
    /** A client accepted at {@code maxConnections} with nothing idle to close: admitted when a place frees. */
    private SocketChannel held;
    /** The failure that started a streak of failed accepts was logged; the rest of the streak is not. */
    private boolean failureLogged;

    LoopAcceptor(HybridEndpoint endpoint, EventLoop loop, ServerSocketChannel server) {
        this.endpoint = endpoint;
        this.loop = loop;
        this.server = server;
    }

    /** Registers for {@code OP_ACCEPT}. Leader only (run as a loop task). */
    boolean register() {
        try {
            key = loop.register(server, SelectionKey.OP_ACCEPT, this);
        } catch (IOException | RuntimeException e) {
            log.error("Loop " + loop.getId() + " could not watch the listening socket", e);
        }
        return true;
    }

    /** Stops or restarts accepting on this loop (pause, resume). Leader only. */
    boolean setAccepting(boolean accepting) {
        if (key != null && key.isValid()) {
            key.interestOps(accepting ? SelectionKey.OP_ACCEPT : 0);
        }
        return true;
    }

    @Override
    public boolean onReady(int readyOps) {
        if (held != null && !admitHeld()) {
            return hold();
        }
        int accepts = loop.backedUp() ? ACCEPTS_PER_EVENT_BACKED_UP : ACCEPTS_PER_EVENT;
        for (int i = 0; i < accepts; i++) {
            if (endpoint.isPaused()) {
                return setAccepting(false);
            }
            SocketChannel socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                return acceptFailed(e);
            }
            if (socket == null) {
                return true; // another loop took it, or the backlog is empty
            }
            failureLogged = false;
            if (!endpoint.admission.admitOnLoop(loop)) {
                held = socket;
                return hold();
            }
            endpoint.acceptOnLoop(socket, loop);
        }
        return true;
    }

    /**
     * An {@code accept()} failed. Out of file descriptors, the least recently used idle connection makes room as at
     * {@code maxConnections} ({@link Admission#freeDescriptor}): if it was this loop's, it is closed now and the loop
     * keeps accepting, since its next select releases the descriptor before it reports the client in the backlog
     * again; otherwise this loop holds until a close resumes it (the victim's, by its own loop, which then accepts as
     * well). With nothing idle to close, or another failure, the loop stops accepting until a connection closes or
     * goes idle, or its next timeout sweep, within a second: the listening socket stays ready, and accepting again at
     * once would spin (the back-off Tomcat's acceptor takes). Off the hot path. Leader only.
     */
    private boolean acceptFailed(IOException e) {
        boolean outOfDescriptors = Admission.isOutOfDescriptors(e);
        if (outOfDescriptors) {
            int freed = endpoint.admission.freeDescriptor(loop);
            if (freed == Admission.EVICTED_HERE) {
                return true;
            }
            if (freed != Admission.NOTHING_IDLE) {
                return hold();
            }
        }
        if (!failureLogged) {
            failureLogged = true;
            log.error("Loop " + loop.getId() + " failed to accept a connection" + (outOfDescriptors ?
                    ", out of file descriptors with no idle connection to close; it tries again when a connection " +
                    "closes or goes idle, within a second" : "; it tries again within a second"), e);
        }
        return hold();
    }

    /** @return whether the held client got its place (and is registered now) */
    private boolean admitHeld() {
        if (!endpoint.admission.admitOnLoop(loop)) {
            return false;
        }
        SocketChannel socket = held;
        held = null;
        endpoint.acceptOnLoop(socket, loop);
        return true;
    }

    private boolean hold() {
        holding = true;
        return setAccepting(false);
    }

    /** A place may be free again, or the back-off is over: accepts again unless paused. Leader only (a loop task). */
    boolean resumeIfHolding() {
        if (holding) {
            if (held != null && !admitHeld()) {
                return true; // still no place: the next close, idle connection or sweep tries again
            }
            holding = false;
            if (!endpoint.isPaused()) {
                setAccepting(true);
            }
        }
        return true;
    }

    /** The backstop: a loop holding clients looks again once a second even if nothing woke it. */
    @Override
    public boolean checkTimeout(long nowMillis) {
        return resumeIfHolding();
    }

    @Override
    public void suspendInterest() {
        // Never run as a request: nothing to suspend.
    }

    @Override
    public long servedAs() {
        return 0; // new connections first: their clients wait longest of all
    }

    @Override
    public void servedAs(long service) {
    }

    @Override
    public boolean resumeIfFree() {
        return true;
    }

    @Override
    public void closeOnStop() {
        if (key != null) {
            key.cancel();
        }
        if (held != null) {
            ListeningEndpoint.destroySocketUncounted(held);
            held = null;
        }
    }
}
