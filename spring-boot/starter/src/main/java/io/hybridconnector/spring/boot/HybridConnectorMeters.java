package io.hybridconnector.spring.boot;

import java.util.List;
import java.util.function.ToDoubleFunction;

import io.hybridconnector.jmx.ConnectorStatsMBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The connector's {@code HybridConnector} MBean as Micrometer meters named {@code tomcat.hybrid.*}, tagged with the
 * connector's name ({@code name=http-hybrid-8080}) as actuator's own {@code tomcat.*} meters are. Each meter reads
 * the same object the MBean is, at scrape time, so the two always agree. Counters are function counters: they go
 * back to zero after the MBean's {@code resetCounters()}, which a Prometheus server reads as a counter reset. The
 * table below maps each meter to its MBean attribute (README, "Counters"). Any thread.
 */
public final class HybridConnectorMeters implements MeterBinder {

    private enum Kind { COUNTER, GAUGE }

    private record Row(String name, String attribute, Kind kind, String unit, ToDoubleFunction<ConnectorStatsMBean> read,
                       String description) {
    }

    private static final List<Row> ROWS = List.of(
            counter("requests", "Requests", s -> s.getRequests(), "requests served"),
            counter("requests.inline", "RequestsInline", s -> s.getRequestsInline(),
                    "requests and events run by an event loop's leader without a thread switch"),
            counter("handoffs", "HandOffs", s -> s.getHandOffs(), "requests that moved their event loop to another thread"),
            counter("handoffs.stall", "StallHandOffs", s -> s.getStallHandOffs(),
                    "hand-offs of requests that waited (sleep, lock, JDBC)"),
            counter("handoffs.computed", "ComputedHandOffs", s -> s.getComputedHandOffs(),
                    "hand-offs of requests that computed past blockedHandOffMillis"),
            counter("handoffs.io", "IoHandOffs", s -> s.getIoHandOffs(), "hand-offs of requests that waited for their socket"),
            counter("handoffs.predicted", "PredictedHandOffs", s -> s.getPredictedHandOffs(),
                    "hand-offs before the request ran, because its class held loops before"),
            counter("handoffs.waited.for.thread", "HandOffsThatWaitedForAThread",
                    s -> s.getHandOffsThatWaitedForAThread(), "hand-offs that found every thread busy"),
            counter("time.slicing.switched.on", "TimeSlicingSwitchedOn", s -> s.getTimeSlicingSwitchedOn(),
                    "times requests computing beside the loops, or uneven rounds, made them serve on pool threads"),
            counter("time.slicing.uneven.rounds", "TimeSlicingForUnevenRounds", s -> s.getTimeSlicingForUnevenRounds(),
                    "times a loop's uneven rounds made the loops serve on pool threads"),
            counter("time.sliced.runs", "TimeSlicedRuns", s -> s.getTimeSlicedRuns(),
                    "ready connections served on a pool thread while requests computed"),
            counter("loop.waits", "LoopWaits", s -> s.getLoopWaits(), "ready connections timed waiting for their loop"),
            gauge("loop.wait.p50", "LoopWaitP50Micros", "microseconds", s -> s.getLoopWaitP50Micros(),
                    "median wait of a ready connection for its loop"),
            gauge("loop.wait.p99", "LoopWaitP99Micros", "microseconds", s -> s.getLoopWaitP99Micros(),
                    "99th percentile wait of a ready connection for its loop"),
            gauge("loop.wait.p999", "LoopWaitP999Micros", "microseconds", s -> s.getLoopWaitP999Micros(),
                    "99.9th percentile wait of a ready connection for its loop"),
            gauge("loop.wait.max", "LoopWaitMaxMicros", "microseconds", s -> s.getLoopWaitMaxMicros(),
                    "longest wait of a ready connection for its loop"),
            counter("cross.thread.tasks", "CrossThreadTasks", s -> s.getCrossThreadTasks(),
                    "tasks handed to a loop from another thread"),
            counter("deferred.tasks", "DeferredTasks", s -> s.getDeferredTasks(),
                    "HTTP/2 streams run by a loop's leader after its ready connections"),
            counter("requests.held", "RequestsHeld", s -> s.getRequestsHeld(),
                    "requests a loop held, without a thread, until their head and small body were in"),
            counter("requests.slow.closed", "SlowRequestsClosed", s -> s.getSlowRequestsClosed(),
                    "requests answered 408 and closed for arriving slower than minRequestDataRate"),
            gauge("threads.current", "ThreadsNow", "threads", s -> s.getThreadsNow(), "the connector's threads"),
            gauge("requests.blocked.current", "BlockedRequestsNow", "requests", s -> s.getBlockedRequestsNow(),
                    "requests running off their loop because they blocked"),
            counter("write.calls", "WriteCalls", s -> s.getWriteCalls(), "write system calls"),
            counter("write.zero.byte", "ZeroByteWrites", s -> s.getZeroByteWrites(), "writes the kernel took nothing of"),
            counter("write.spins", "Spins", s -> s.getSpins(), "write retries without waiting (spin strategy)"),
            counter("write.direct", "DirectWrites", s -> s.getDirectWrites(), "responses written whole by the request's thread"),
            counter("write.behind.handovers", "WriteBehindHandOvers", s -> s.getWriteBehindHandOvers(),
                    "responses whose rest was left for the loop to flush"),
            counter("write.loop.flushes", "LoopFlushes", s -> s.getLoopFlushes(), "flushes of write-behind by a loop"),
            counter("write.paused.flushes", "PausedFlushes", s -> s.getPausedFlushes(),
                    "writes made for requests that paused without flushing"),
            counter("write.writer.waits", "WriterWaits", s -> s.getWriterWaits(),
                    "writers that waited for the socket above writeBehindLimit"),
            counter("write.timeouts", "WriteTimeouts", s -> s.getWriteTimeouts(), "writes that passed their deadline"),
            gauge("write.behind.bytes.current", "WriteBehindBytesNow", "bytes", s -> s.getWriteBehindBytesNow(),
                    "bytes waiting in write-behind buffers"),
            gauge("write.behind.bytes.peak", "WriteBehindPeakBytes", "bytes", s -> s.getWriteBehindPeakBytes(),
                    "most bytes ever waiting in write-behind buffers"),
            gauge("write.parked.writers.current", "ParkedWritersNow", "threads", s -> s.getParkedWritersNow(),
                    "writers waiting for their socket"),
            gauge("classifier.size", "ClassifierSize", "classes", s -> s.getClassifierSize(), "request classes known"),
            gauge("classifier.heavy.classes", "ClassifierHeavyClasses", "classes", s -> s.getClassifierHeavyClasses(),
                    "request classes learnt heavy (large responses)"),
            gauge("classifier.blocking.classes", "ClassifierBlockingClasses", "classes",
                    s -> s.getClassifierBlockingClasses(), "request classes learnt to block"),
            counter("classifier.hits", "ClassifierHits", s -> s.getClassifierHits(), "requests whose class was known"),
            counter("classifier.misses", "ClassifierMisses", s -> s.getClassifierMisses(), "requests of a new class"),
            counter("classifier.reclassifications", "Reclassifications", s -> s.getReclassifications(),
                    "request classes that changed kind"),
            gauge("connections.current", "ConnectionsNow", "connections", s -> s.getConnectionsNow(), "open connections"),
            gauge("connections.idle.current", "IdleConnectionsNow", "connections", s -> s.getIdleConnectionsNow(),
                    "connections between requests"));

    private final ConnectorStatsMBean stats;
    private final List<Tag> tags;

    /**
     * @param stats         the connector's MBean ({@code HybridHttp11Protocol.stats()})
     * @param connectorName the connector's name, e.g. {@code http-hybrid-8080}: the {@code name} tag
     */
    public HybridConnectorMeters(ConnectorStatsMBean stats, String connectorName) {
        this.stats = stats;
        this.tags = List.of(Tag.of("name", connectorName));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Row row : ROWS) {
            String name = "tomcat.hybrid." + row.name();
            String description = row.description() + " (HybridConnector MBean: " + row.attribute() + ")";
            if (row.kind() == Kind.COUNTER) {
                FunctionCounter.builder(name, stats, row.read()).tags(tags).description(description).register(registry);
            } else {
                Gauge.builder(name, stats, row.read()).tags(tags).baseUnit(row.unit()).description(description)
                        .strongReference(true).register(registry);
            }
        }
    }

    /** The meter names, for documentation and tests: {@code tomcat.hybrid.handoffs}, ... */
    public static List<String> meterNames() {
        return ROWS.stream().map(r -> "tomcat.hybrid." + r.name()).toList();
    }

    /** @return the MBean attribute a meter reads, e.g. {@code HandOffs} for {@code tomcat.hybrid.handoffs} */
    public static String attributeOf(String meterName) {
        return ROWS.stream().filter(r -> ("tomcat.hybrid." + r.name()).equals(meterName)).map(Row::attribute)
                .findFirst().orElseThrow(() -> new IllegalArgumentException(meterName));
    }

    private static Row counter(String name, String attribute, ToDoubleFunction<ConnectorStatsMBean> read,
                               String description) {
        return new Row(name, attribute, Kind.COUNTER, null, read, description);
    }

    private static Row gauge(String name, String attribute, String unit, ToDoubleFunction<ConnectorStatsMBean> read,
                             String description) {
        return new Row(name, attribute, Kind.GAUGE, unit, read, description);
    }
}
