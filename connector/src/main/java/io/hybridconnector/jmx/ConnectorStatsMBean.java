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
    /** Requests moved off a loop, for any of the causes below. */
    long getHandOffs();
    /** The stall detector saw the request wait: a sleep, a lock, a system call (JDBC). */
    long getStallHandOffs();
    /** The stall detector saw the request compute past blockedHandOffMillis while other connections may wait. */
    long getComputedHandOffs();
    /**
     * The request held its loop for blockedHandOffMillis but was on a CPU for less than half of it (an overloaded
     * machine): the loop moved; the request's class was not learnt as long.
     */
    long getStarvedHandOffs();
    /** The request was about to wait for its own socket (a body still in flight, a client that reads slowly). */
    long getIoHandOffs();
    /** The request's class held loops before: moved before it ran. */
    long getPredictedHandOffs();
    long getHandOffsThatWaitedForAThread();
    /**
     * Times the loops began serving ready connections on pool threads (timeSlicing): requests computed beside them, or
     * a loop's round was uneven (requests under 1 ms that together held it 1 ms or more while a brief one waited).
     */
    long getTimeSlicingSwitchedOn();
    /** Of {@link #getTimeSlicingSwitchedOn()}, the times a loop's round was uneven. */
    long getTimeSlicingForUnevenRounds();
    /** Ready connections served on a pool thread because requests computed beside the loops. */
    long getTimeSlicedRuns();
    /**
     * Ready connections served on the executor the operator gave ({@code executor}, {@code useVirtualThreads}, Spring
     * Boot's virtual threads) because their previous request left its loop (it blocked, or its class is known to).
     */
    long getExecutorRuns();

    /** Tasks running on that executor right now (0 without one). */
    int getExecutorTasksRunning();

    // how long ready connections waited for their loop (microseconds; log-linear buckets, within 25%)
    long getLoopWaits();
    long getLoopWaitP50Micros();
    long getLoopWaitP99Micros();
    long getLoopWaitP999Micros();
    long getLoopWaitMaxMicros();
    long getCrossThreadTasks();

    /** HTTP/2 streams (executor work) run by a loop's leader after its ready connections, without a thread switch. */
    long getDeferredTasks();

    /** Backed-up batches of ready connections a loop served least recently served first, close to arrival order. */
    long getReorderedBatches();

    /** Ready connections that sat a loop's round out because their last run held the loop longer than their share. */
    long getRoundsSatOut();

    /** Requests a loop held, without a thread, until their head and small body were in (slow clients, issue 40). */
    long getRequestsHeld();

    /** Held requests answered 408 and closed because they arrived slower than {@code minRequestDataRate}. */
    long getSlowRequestsClosed();

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
    /** Writes the stall detector made for requests that paused with at least 8 KB gathered and not flushed. */
    long getPausedFlushes();
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
    /** Times the table of classes refined by a query was full and started afresh: queries that rarely repeat. */
    long getClassifierQueriedResets();

    // connections
    int getConnectionsNow();
    int getIdleConnectionsNow();

    /** Connections registered with each event loop, e.g. {@code "262 263"}: how evenly accepting spread them. */
    String getLoopConnections();

    void resetCounters();
}
