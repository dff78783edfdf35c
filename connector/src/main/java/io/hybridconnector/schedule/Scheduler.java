package io.hybridconnector.schedule;

import org.apache.tomcat.util.net.SocketEvent;

/**
 * Which thread runs a connection's events: the one place where a request is handed off, or not (STYLE habit 2, as
 * Jetty's {@code ExecutionStrategy} or Tomcat's {@code processSocket}). One implementation per thread model
 * ({@link ThreadModel}); the endpoint makes one per start and every connection keeps it in a final field, so the
 * per-request call sees one class in practice (the JIT inlines it; no allocation on the inline path).
 * <p>
 * Threads: {@link #onReady} and {@link #onDispatch} run on the connection's loop's leader; {@link #open} on the
 * thread that accepted the connection.
 */
public interface Scheduler {

    /**
     * The connection's socket is ready for {@code consumed} (taken out of its interest): runs the event inline, or
     * suspends the connection's interest and hands it to another thread, which gives it back when done. Leader only.
     *
     * @return whether the calling thread still leads the loop
     */
    boolean onReady(ScheduledConnection connection, SocketEvent event, int consumed);

    /**
     * An event dispatched to the connection's loop (an async completion, a non-blocking I/O listener, a timeout).
     * Leader only.
     *
     * @return whether the calling thread still leads the loop
     */
    boolean onDispatch(ScheduledConnection connection, SocketEvent event);

    /**
     * A new connection, set up and counted: registers it with its loop for its first request, or starts its own
     * thread.
     *
     * @param onItsLoop the caller leads the connection's loop ({@code acceptMode="loops"}): register inline
     */
    void open(ScheduledConnection connection, boolean onItsLoop);
}
