package io.hybridconnector.schedule;

import io.hybridconnector.loop.LoopThreadPool;

import org.apache.tomcat.util.net.SocketEvent;

/**
 * Research variant {@code threadModel="reactor"} (sTomcat-Async-Fix): the loop only selects; each ready connection
 * and each dispatched event goes to a worker, which reads, runs the servlet and writes, then gives the connection back
 * to the loop (a task and a wake-up): two hand-offs per request, as stock NIO. Runs on the loops' leaders.
 */
final class ReactorScheduler implements Scheduler {

    private final LoopThreadPool workers;

    ReactorScheduler(LoopThreadPool workers) {
        this.workers = workers;
    }

    @Override
    public boolean onReady(ScheduledConnection connection, SocketEvent event, int consumed) {
        connection.suspendInterest(consumed);
        workers.execute(() -> connection.runOnWorker(event, consumed));
        return true;
    }

    @Override
    public boolean onDispatch(ScheduledConnection connection, SocketEvent event) {
        workers.execute(() -> connection.runOnWorker(event, 0));
        return true;
    }

    @Override
    public void open(ScheduledConnection connection, boolean onItsLoop) {
        HybridScheduler.openOnLoop(connection, onItsLoop);
    }
}
