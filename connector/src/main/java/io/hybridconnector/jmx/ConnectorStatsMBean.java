package io.hybridconnector.jmx;

/**
 * What one {@code HybridHttp11Protocol} connector did, registered as
 * {@code <domain>:type=HybridConnector,name="<connector name>"} beside Tomcat's {@code ThreadPool} and
 * {@code GlobalRequestProcessor} beans. Counters run from start or the last {@link #resetCounters()}; gauges
 * (marked "now") are current values.
 */
public interface ConnectorStatsMBean {

    // requests and threads
    long getRequests();
    long getRequestsInline();
    long getHandOffs();
    long getStallHandOffs();
    long getIoHandOffs();
    long getPredictedHandOffs();
    long getHandOffsThatWaitedForAThread();
    long getCrossThreadTasks();

    /** HTTP/2 streams (executor work) run by a loop's leader after its ready connections, without a thread switch. */
    long getDeferredTasks();
    int getThreadsNow();
    int getBlockedRequestsNow();

    // the write path
    String getWriteStrategy();
    long getWriteCalls();
    long getZeroByteWrites();
    long getSpins();
    long getDirectWrites();
    long getWriteBehindHandOvers();
    long getLoopFlushes();
    long getWriterWaits();
    long getWriteTimeouts();
    long getWriteBehindBytesNow();
    long getWriteBehindPeakBytes();
    long getParkedWritersNow();

    // the classifier
    int getClassifierSize();
    long getClassifierHeavyClasses();
    long getClassifierBlockingClasses();
    long getClassifierHits();
    long getClassifierMisses();
    long getReclassifications();

    // connections
    int getConnectionsNow();
    int getIdleConnectionsNow();

    void resetCounters();
}
