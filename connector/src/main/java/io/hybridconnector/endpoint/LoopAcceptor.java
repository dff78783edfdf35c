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

    /** Clients accepted per readiness event before the loop turns to its other connections. */
    private static final int ACCEPTS_PER_EVENT = 64;

    private final HybridEndpoint endpoint;
    private final EventLoop loop;
    private final ServerSocketChannel server;
    private SelectionKey key;

    LoopAcceptor(HybridEndpoint endpoint, EventLoop loop, ServerSocketChannel server) {
        this.endpoint = endpoint;
        this.loop = loop;
        this.server = server;
    }

    /** Registers for {@code OP_ACCEPT}. Leader only (run as a loop task). */
    boolean register() {
        try {
            key = loop.registerListener(server, SelectionKey.OP_ACCEPT, this);
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
        for (int i = 0; i < ACCEPTS_PER_EVENT; i++) {
            if (endpoint.isPaused()) {
                return setAccepting(false);
            }
            SocketChannel socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                log.debug("Accept failed on loop " + loop.getId(), e);
                return true;
            }
            if (socket == null) {
                return true; // another loop took it, or the backlog is empty
            }
            endpoint.acceptOnLoop(socket, loop);
        }
        return true;
    }

    @Override
    public boolean checkTimeout(long nowMillis) {
        return true;
    }

    @Override
    public void suspendInterest() {
        // Never run as a request: nothing to suspend.
    }

    @Override
    public long servedRound() {
        return 0; // new connections first: their clients wait longest of all
    }

    @Override
    public void servedRound(long round) {
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
    }
}
