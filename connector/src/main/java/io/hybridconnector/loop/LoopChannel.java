package io.hybridconnector.loop;

/**
 * A connection as its {@link EventLoop} sees it: something to run when its socket is ready, to check for
 * timeouts, and to close when the loop stops. Every method runs on the loop's current leader.
 */
public interface LoopChannel {

    /**
     * Handles readiness reported by the selector, inline.
     *
     * @param readyOps the ready operations of the channel's key
     * @return {@code false} if the calling thread lost the loop while it ran the request (the request blocked)
     */
    boolean onReady(int readyOps);

    /**
     * Times out a connection whose read or write deadline has passed.
     *
     * @return {@code false} if the calling thread lost the loop while it ran
     */
    boolean checkTimeout(long nowMillis);

    /**
     * The leader that takes over a loop calls this for the connection whose request blocked the previous leader:
     * the connection must not be reported ready while that request still runs elsewhere, but for a write that waits
     * for this loop ({@link #writeWaitsForLoop}): that request may be waiting for it (a WebSocket close waits for the
     * message being sent), and only this loop would see the socket writable.
     */
    void suspendInterest();

    /**
     * @return whether a write of this connection waits for its loop: an asynchronous write operation, or a
     *         non-blocking write's rest, waiting for writability. Read by the stall detector during the connection's
     *         run, without synchronisation: a stale answer only delays a move by one look.
     */
    default boolean writeWaitsForLoop() {
        return false;
    }

    /**
     * The stall detector moved the loop away from this connection's run because it waits (a sleep, a lock, a system
     * call): its request's class is learnt as blocking now, not when the request ends, so that the requests of that
     * class arriving meanwhile (a burst of them on new connections) give their loop away, or start on the operator's
     * executor, before they run. Stall detector only; the run is parked in the application.
     */
    default void blockedOnLoop() {
    }

    /**
     * @return whether this connection's last run gave its loop away to wait (a sleep, a lock, a query, its own socket;
     *         or its class is known to wait, so it moved the loop before it ran), or went to the operator's executor:
     *         its next request will most likely leave too, and {@link ReadyOrder} serves it ahead of the batch. Not a
     *         run that computed: its move wakes a leader that must then wait for a CPU the computing threads hold,
     *         and every connection behind it in the batch with it. Read by the leader while the connection is ready,
     *         written at the end of its run; a stale answer only misplaces it in one batch.
     */
    default boolean lastRunWaitedOffLoop() {
        return false;
    }

    /**
     * Restores the interest suspended while another thread held the connection.
     *
     * @return {@code true} once done; {@code false} if the other thread still holds it
     */
    boolean resumeIfFree();

    /** Closes the connection because the loop is stopping. */
    void closeOnStop();

    /**
     * The number the loop gave this connection's last service, counting every service of the loop ({@code 0}: never
     * served), for {@link ReadyOrder}: under backlog the loop serves the least recently served first.
     */
    long servedAs();

    /** Notes the number of the loop's service that serves this connection now. Leader only. */
    void servedAs(long service);

    /**
     * @return whether this connection's last run held its loop longer than its share of the round while others were
     *         ready, so that it sits the next round out ({@link RoundShares}); never for what is not a connection
     */
    default boolean ranOverShare() {
        return false;
    }

    /** Sets what {@link #ranOverShare()} returns. Leader only. */
    default void ranOverShare(boolean over) {
    }

    /** @return what this connection is running, for a log line: e.g. {@code "GET /report?year=2026"} */
    default String describeRun() {
        return toString();
    }
}
