package io.hybridconnector.schedule;

import java.io.IOException;

import io.hybridconnector.loop.EventLoop;

import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SocketEvent;

/**
 * What a {@link Scheduler} may do with a connection: the ways to run one of its events, each of which keeps the
 * connection's rules (one thread at a time under its lock; only the leader touches its key). Implemented by the
 * endpoint's socket wrapper, the only implementation, so these calls bind to it directly.
 */
public interface ScheduledConnection {

    /** @return the loop that owns the connection's key */
    EventLoop loop();

    /** Registers with the loop's selector for the first request. Leader only. */
    boolean registerWithLoop();

    /**
     * Runs a ready event on the leader, inline; if another thread holds the connection, suspends its interest and
     * resumes it when that thread lets go. Leader only.
     *
     * @return whether the calling thread still leads the loop
     */
    boolean runOnLoop(SocketEvent event, int consumed);

    /**
     * Runs a dispatched event on the leader, inline; if another thread holds the connection, the event waits for it.
     * Leader only.
     *
     * @return whether the calling thread still leads the loop
     */
    boolean dispatchOnLoop(SocketEvent event);

    /**
     * Runs an event on the calling thread, not the leader (a worker), waiting for the connection's lock; then gives
     * the connection back to its loop (a task and a wake-up). Call {@link #suspendInterest} on the leader first.
     */
    void runOnWorker(SocketEvent event, int consumed);

    /**
     * Takes the key's interest away until the connection is given back, but for a write that waits for the loop
     * and is not the event {@code consumed} (a run may wait for it). Leader only.
     */
    void suspendInterest(int consumed);

    /**
     * The previous request left its loop (it blocked, or its class is known to), so the next one most likely will too:
     * with an operator's executor it starts there. Written under the lock at the end of a run; a stale read costs one
     * misplaced run.
     */
    boolean lastRunLeftLoop();

    /**
     * How long the previous request ran: on a pool thread, as measured; inline, 0 if it kept its loop, else the budget
     * (it held the loop its share at least). While the loops serve on pool threads, a connection whose last request
     * was not a light one waits behind light ones for at most this long ({@code Turns}). Same writing and reading as
     * {@link #lastRunLeftLoop}.
     */
    long lastRunNanos();

    /**
     * With an operator's executor: whether the request waiting on this connection is of a class known to block or
     * compute past the budget, read from its request line before Tomcat parses it, so that it starts on the executor
     * rather than on a connector thread it would then hold. The bytes read stay in the connection's read buffer for
     * Tomcat. A TLS connection's request is encrypted until the engine unwraps it: {@code true} for a new one until a
     * read returned application data (its handshake ends on the executor, and its first request runs there).
     * {@code false} when the bytes or the connection cannot tell (an upgraded connection, a request line not complete
     * yet, another thread holds the connection). Leader only.
     */
    boolean nextRequestLeavesLoop();

    // ---------------------------------------------------------------- a connection served on its own thread (sync)

    /** Takes the connection's lock, waiting for it. */
    void lock();

    /** Lets go of the lock and resumes the connection if the loop found it locked meanwhile. */
    void unlockAndResume();

    boolean isClosed();

    /** Runs one event through Tomcat's handler on this thread, the socket assumed readable. Lock held. */
    SocketState process(SocketEvent event);

    /** @return the interest Tomcat's handler registered during the last {@link #process}. Lock held. */
    int requestedOps();

    /**
     * Sends the bytes left behind, then waits on this thread for the socket to be ready for {@code op}, with the
     * write timeout, or for a read the read timeout (the connection timeout when that is infinite). Lock held.
     *
     * @throws IOException the wait failed or timed out
     */
    void awaitOnOwnThread(int op) throws IOException;

    /** Closes the connection. */
    void close();
}
