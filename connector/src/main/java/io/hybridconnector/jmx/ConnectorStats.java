package io.hybridconnector.jmx;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.hybridconnector.endpoint.HybridEndpoint;
import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.LoopWaitHistogram;
import io.hybridconnector.loop.LoopCounters;
import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.write.WriteCounters;

import org.apache.coyote.RequestGroupInfo;

/**
 * The connector's JMX view: reads the endpoint's counters, keeps nothing of its own.
 */
public final class ConnectorStats implements ConnectorStatsMBean {

    private final HybridEndpoint endpoint;
    private final RequestGroupInfo global;
    private ObjectName name;
    /** Tomcat's request count when the counters were last reset: Tomcat's own bean keeps counting from start. */
    private volatile long requestsAtReset;

    public ConnectorStats(HybridEndpoint endpoint, RequestGroupInfo global) {
        this.endpoint = endpoint;
        this.global = global;
    }

    /** Registers with the platform MBean server, where Tomcat registers its own beans. */
    public void register(String domain, String connectorName) throws JMException {
        ObjectName on = new ObjectName((domain == null ? "io.hybridconnector" : domain) +
                ":type=HybridConnector,name=" + connectorName);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        if (server.isRegistered(on)) {
            server.unregisterMBean(on);
        }
        server.registerMBean(this, on);
        name = on;
    }

    public void unregister() {
        ObjectName on = name;
        if (on != null) {
            name = null;
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(on);
            } catch (JMException e) {
                // Already gone.
            }
        }
    }

    public ObjectName getObjectName() {
        return name;
    }

    private LoopCounters loops() {
        return endpoint.counters();
    }

    private WriteCounters writes() {
        return endpoint.writeCounters();
    }

    private RequestClassifier classifier() {
        return endpoint.classifier();
    }

    @Override
    public long getRequests() {
        return global == null ? 0 : global.getRequestCount() - requestsAtReset;
    }

    @Override
    public long getRequestsInline() {
        return loops().getInlineRuns();
    }

    @Override
    public long getHandOffs() {
        return loops().getHandOffs();
    }

    @Override
    public long getStallHandOffs() {
        return loops().getStallHandOffs();
    }

    @Override
    public long getIoHandOffs() {
        return loops().getIoHandOffs();
    }

    @Override
    public long getPredictedHandOffs() {
        return loops().getPredictedHandOffs();
    }

    @Override
    public long getComputedHandOffs() {
        return loops().getComputedHandOffs();
    }

    @Override
    public long getStarvedHandOffs() {
        return loops().getHandOffs(io.hybridconnector.loop.HandOffPolicy.Decision.STARVED);
    }

    @Override
    public long getTimeSlicingSwitchedOn() {
        return loops().getTimeSlicingOn();
    }

    @Override
    public long getTimeSlicingForUnevenRounds() {
        return loops().getTimeSlicingOnUnevenRounds();
    }

    @Override
    public long getTimeSlicedRuns() {
        return loops().getTimeSlicedRuns();
    }

    @Override
    public long getExecutorRuns() {
        return loops().getExecutorRuns();
    }

    @Override
    public int getExecutorTasksRunning() {
        return endpoint.getExecutorTasksRunning();
    }

    /** @return the loops' waits merged now (empty when the connector is stopped) */
    public LoopWaitHistogram.Snapshot loopWaits() {
        return LoopWaitHistogram.snapshot(endpoint.eventLoops());
    }

    @Override
    public long getLoopWaits() {
        return loopWaits().count();
    }

    @Override
    public long getLoopWaitP50Micros() {
        return loopWaits().p50Micros();
    }

    @Override
    public long getLoopWaitP99Micros() {
        return loopWaits().p99Micros();
    }

    @Override
    public long getLoopWaitP999Micros() {
        return loopWaits().p999Micros();
    }

    @Override
    public long getLoopWaitMaxMicros() {
        return loopWaits().maxMicros();
    }

    @Override
    public long getClassifierBlockingClasses() {
        return classifier().getBlockingClasses();
    }

    @Override
    public long getHandOffsThatWaitedForAThread() {
        return loops().getLeaderlessHandOffs();
    }

    @Override
    public long getCrossThreadTasks() {
        return loops().getCrossThreadTasks();
    }

    @Override
    public long getDeferredTasks() {
        return loops().getDeferredTasks();
    }

    @Override
    public long getReorderedBatches() {
        return loops().getReorderedBatches();
    }

    @Override
    public long getRoundsSatOut() {
        return loops().getRoundsSatOut();
    }

    @Override
    public long getRequestsHeld() {
        return loops().getRequestsHeld();
    }

    @Override
    public long getSlowRequestsClosed() {
        return loops().getSlowRequestsClosed();
    }

    @Override
    public int getThreadsNow() {
        return endpoint.getCurrentThreadCount();
    }

    @Override
    public int getBlockedRequestsNow() {
        return endpoint.getBlockedRequests();
    }

    @Override
    public String getWriteStrategy() {
        return endpoint.getWriteStrategy().attributeValue();
    }

    @Override
    public long getWriteCalls() {
        return writes().getWriteCalls();
    }

    @Override
    public long getZeroByteWrites() {
        return writes().getZeroByteWrites();
    }

    @Override
    public long getSpins() {
        return writes().getSpins();
    }

    @Override
    public long getDirectWrites() {
        return writes().getDirectWrites();
    }

    @Override
    public long getWriteBehindHandOvers() {
        return writes().getWriteBehindHandOvers();
    }

    @Override
    public long getLoopFlushes() {
        return writes().getLoopFlushes();
    }

    @Override
    public long getPausedFlushes() {
        return writes().getPausedFlushes();
    }

    @Override
    public long getWriterWaits() {
        return writes().getWriterWaits();
    }

    @Override
    public long getWriteTimeouts() {
        return writes().getWriteTimeouts();
    }

    @Override
    public long getWriteBehindBytesNow() {
        return writes().getWriteBehindBytes();
    }

    @Override
    public long getWriteBehindPeakBytes() {
        return writes().getWriteBehindPeak();
    }

    @Override
    public long getParkedWritersNow() {
        return writes().getParkedWriters();
    }

    @Override
    public int getClassifierSize() {
        return classifier().size();
    }

    @Override
    public long getClassifierHeavyClasses() {
        return classifier().getHeavyClasses();
    }

    @Override
    public long getClassifierHits() {
        return classifier().getHits();
    }

    @Override
    public long getClassifierMisses() {
        return classifier().getMisses();
    }

    @Override
    public long getReclassifications() {
        return classifier().getReclassifications();
    }

    @Override
    public long getClassifierQueriedResets() {
        return classifier().getQueriedResets();
    }

    @Override
    public int getConnectionsNow() {
        return (int) endpoint.getConnectionCount();
    }

    @Override
    public int getIdleConnectionsNow() {
        return endpoint.getIdleConnectionCount();
    }

    @Override
    public String getLoopConnections() {
        StringBuilder b = new StringBuilder();
        for (EventLoop loop : endpoint.eventLoops()) {
            b.append(b.length() == 0 ? "" : " ").append(loop.getConnectionCount());
        }
        return b.toString();
    }

    @Override
    public void resetCounters() {
        requestsAtReset = global == null ? 0 : global.getRequestCount();
        loops().reset();
        for (EventLoop loop : endpoint.eventLoops()) {
            loop.waits().reset();
        }
        writes().reset();
        classifier().resetCounters();
    }
}
