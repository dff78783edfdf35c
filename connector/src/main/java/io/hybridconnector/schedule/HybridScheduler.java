package io.hybridconnector.schedule;

import io.hybridconnector.loop.LoopCounters;
import io.hybridconnector.loop.LoopThreadPool;
import io.hybridconnector.loop.TimeSlicing;

import org.apache.tomcat.util.net.SocketEvent;

/**
 * The connector's own model ({@code threadModel="hybrid"}, the default): the loop's leader reads, runs the servlet and
 * writes, inline, with no queue and no wake-up; a request that blocks moves the loop, not itself (the stall detector,
 * DESIGN.md hand-off 2). Two exceptions hand a ready connection to a pool thread, as stock NIO's poller hands every
 * one: while requests compute beside the loops ({@link TimeSlicing}, hand-off 6), and, when the operator gave an
 * executor, for a connection whose last request left its loop or whose waiting request, read from its request line
 * before Tomcat parses it, is of a class known to block (hand-off 7). Runs on the loops' leaders; stateless
 * beyond its configuration, one per endpoint start.
 */
final class HybridScheduler implements Scheduler {

    private final LoopThreadPool workers;
    private final TimeSlicing timeSlicing;
    private final LoopCounters counters;
    /** The operator gave an executor ({@code executor}, {@code useVirtualThreads}): requests that block run there. */
    private final boolean executorForBlocking;

    HybridScheduler(LoopThreadPool workers, TimeSlicing timeSlicing, LoopCounters counters,
            boolean executorForBlocking) {
        this.workers = workers;
        this.timeSlicing = timeSlicing;
        this.counters = counters;
        this.executorForBlocking = executorForBlocking;
    }

    /** The fast path: one volatile read (time slicing), one final boolean, then the run, inline. */
    @Override
    public boolean onReady(ScheduledConnection connection, SocketEvent event, int consumed) {
        if (timeSlicing.isOn()) {
            counters.timeSlicedRun();
            connection.suspendInterest(consumed);
            workers.executeInTurn(() -> connection.runOnWorker(event, consumed), connection.lastRunNanos());
            return true;
        }
        if (executorForBlocking && (connection.lastRunLeftLoop() || connection.nextRequestLeavesLoop())) {
            counters.executorRun();
            return handToWorker(connection, event, consumed);
        }
        return connection.runOnLoop(event, consumed);
    }

    /** The worker owns the connection until it gives it back (its interest restored by a task on the loop). */
    private boolean handToWorker(ScheduledConnection connection, SocketEvent event, int consumed) {
        connection.suspendInterest(consumed);
        workers.execute(() -> connection.runOnWorker(event, consumed));
        return true;
    }

    @Override
    public boolean onDispatch(ScheduledConnection connection, SocketEvent event) {
        return connection.dispatchOnLoop(event);
    }

    @Override
    public void open(ScheduledConnection connection, boolean onItsLoop) {
        openOnLoop(connection, onItsLoop);
    }

    /** Registers a new connection with its loop: inline when the caller leads it, otherwise as a task. */
    static void openOnLoop(ScheduledConnection connection, boolean onItsLoop) {
        if (onItsLoop) {
            connection.registerWithLoop();
        } else {
            connection.loop().submit(connection::registerWithLoop);
        }
    }
}
