package io.hybridconnector.schedule;

import java.io.IOException;
import java.nio.channels.SelectionKey;

import io.hybridconnector.loop.LoopThreadPool;

import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SocketEvent;

/**
 * Research variant {@code threadModel="sync"} (sTomcat-Sync, Tomcat 7's blocking connector, BIO): one thread per
 * connection, from its first request until it closes, waiting for the next request on the connection itself with the
 * keep-alive timeout (the connection timeout when keep-alive is infinite, as BIO's default was); {@code threads}
 * bounds the connections served at once. The connection is never registered with a loop; its loop is used only for
 * tasks. Runs on the connection's own pool thread.
 */
final class SyncScheduler implements Scheduler {

    private final LoopThreadPool workers;

    SyncScheduler(LoopThreadPool workers) {
        this.workers = workers;
    }

    /** Not called: a sync connection is not registered with a selector. */
    @Override
    public boolean onReady(ScheduledConnection connection, SocketEvent event, int consumed) {
        return onDispatch(connection, event);
    }

    /** A request that went asynchronous ends: its dispatch comes back to a thread of its own. */
    @Override
    public boolean onDispatch(ScheduledConnection connection, SocketEvent event) {
        workers.execute(() -> serve(connection, event));
        return true;
    }

    @Override
    public void open(ScheduledConnection connection, boolean onItsLoop) {
        workers.execute(() -> serve(connection, SocketEvent.OPEN_READ));
    }

    /**
     * Serves request after request on this thread. Returns when the connection closes or a request goes asynchronous
     * (its dispatch comes back through {@link #onDispatch}).
     */
    private static void serve(ScheduledConnection connection, SocketEvent first) {
        connection.lock();
        try {
            SocketEvent event = first;
            while (!connection.isClosed()) {
                SocketState state = connection.process(event);
                if (connection.isClosed()) {
                    return;
                }
                int op = nextWait(state, connection.requestedOps());
                if (op == 0) {
                    return; // asynchronous: the dispatch that ends it comes back through onDispatch
                }
                try {
                    connection.awaitOnOwnThread(op);
                } catch (IOException e) {
                    connection.close();
                    return;
                }
                event = op == SelectionKey.OP_WRITE ? SocketEvent.OPEN_WRITE : SocketEvent.OPEN_READ;
            }
        } finally {
            connection.unlockAndResume();
        }
    }

    /** @return what this thread waits for next: the next request, a non-blocking listener's socket, or 0 (none) */
    private static int nextWait(SocketState state, int requestedOps) {
        if (state == SocketState.OPEN) {
            return SelectionKey.OP_READ;
        }
        if (state == SocketState.LONG && requestedOps != 0) {
            // Servlet non-blocking I/O: the listener waits for the socket, so this thread does.
            return (requestedOps & SelectionKey.OP_WRITE) != 0 ? SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        }
        return 0;
    }
}
