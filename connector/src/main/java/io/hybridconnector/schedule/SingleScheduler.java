package io.hybridconnector.schedule;

import org.apache.tomcat.util.net.SocketEvent;

/**
 * Research variant {@code threadModel="single"} (SingleT-Async, N copies): {@code threads} loops, each led by one
 * thread for good, which does everything and never hands off (the endpoint runs no stall detector, so loops never
 * move); a request that blocks stalls its loop's connections. Runs on the loops' leaders.
 */
final class SingleScheduler implements Scheduler {

    @Override
    public boolean onReady(ScheduledConnection connection, SocketEvent event, int consumed) {
        return connection.runOnLoop(event, consumed);
    }

    @Override
    public boolean onDispatch(ScheduledConnection connection, SocketEvent event) {
        return connection.dispatchOnLoop(event);
    }

    @Override
    public void open(ScheduledConnection connection, boolean onItsLoop) {
        HybridScheduler.openOnLoop(connection, onItsLoop);
    }
}
