package io.hybridconnector.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code server.tomcat.hybrid.*}: the connector's own attributes (README, "Attributes"), under the same names in
 * Boot's kebab case ({@code loopWarnMillis} is {@code server.tomcat.hybrid.loop-warn-millis}), bound by Spring Boot and
 * applied to {@code HybridHttp11Protocol} after Boot's {@code server.tomcat.*} settings. A property left unset keeps
 * the connector's default, so a new default in the connector reaches applications without a new starter. Tomcat's
 * own attributes keep their {@code server.tomcat.*} names ({@code threads.max}, {@code max-connections},
 * {@code connection-timeout}, ...): they mean the same on this connector.
 */
@ConfigurationProperties(prefix = "server.tomcat.hybrid")
public class HybridConnectorProperties {

    /**
     * Whether the embedded Tomcat runs io.hybridconnector.HybridHttp11Protocol instead of stock NIO. false: stock NIO,
     * as without the starter.
     */
    private boolean enabled = true;

    /**
     * Requests that may run at once, blocked ones included; idle keep-alive connections hold no thread. Default:
     * server.tomcat.threads.max (200), which Boot always sets; this property, when set, wins over it.
     */
    private Integer threads;

    /** Event loops (selectors). Default: one per CPU core. */
    private Integer loops;

    /**
     * The hand-off budget: how long a request may hold its event loop while the loop's other connections may wait
     * before the loop moves to another thread, in milliseconds. 1 to 1000. Default: 5.
     */
    private Long blockedHandOffMillis;

    /**
     * Whether ready connections are served on pool threads while computing requests crowd the CPUs. Default: off.
     */
    private TimeSlicing timeSlicing;

    /**
     * After how long a request holding a loop, or a loop waiting for a free thread, is logged (WARN, at most one per
     * 10 s), in milliseconds. -1: never. Default: 1000.
     */
    private Long loopWarnMillis;

    /** Who accepts connections. Default: loops. */
    private AcceptMode acceptMode;

    /** Research variants of the threading (the papers' servers). Default: hybrid. */
    private ThreadModel threadModel;

    /** What a write that the kernel does not take at once does. Default: hybrid. */
    private WriteStrategy writeStrategy;

    /**
     * Bytes per connection that the event loop may flush behind the request before the writer waits for the socket.
     * 8192 to 67108864. Default: 262144.
     */
    private Integer writeBehindLimit;

    /** Whether HTTP/2 and WebSocket use Tomcat's asynchronous socket operations. Default: true, as on stock NIO. */
    private Boolean useAsyncIo;

    /** timeSlicing values. */
    public enum TimeSlicing {
        /** Loops always serve ready connections inline. */
        OFF,
        /** While requests compute beside the loops, ready connections are served on pool threads (stock's way). */
        AUTO
    }

    /** acceptMode values. */
    public enum AcceptMode {
        /** Tomcat's acceptor thread hands each connection to the least-loaded loop. */
        ACCEPTOR,
        /** Every loop accepts on the listening socket itself. */
        LOOPS
    }

    /** threadModel values. */
    public enum ThreadModel {
        /** Same-thread serving, lazy hand-off (the connector). */
        HYBRID,
        /** Loops detect, workers serve (sTomcat-Async-Fix). */
        REACTOR,
        /** One thread per loop, nothing handed off (SingleT-Async). */
        SINGLE,
        /** A thread per connection (sTomcat-Sync). */
        SYNC
    }

    /** writeStrategy values. */
    public enum WriteStrategy {
        /** One direct write; the rest is left behind for the loop to flush. */
        HYBRID,
        /** Retry until done (SingleT-Async). */
        DIRECT,
        /** 16 writes, then wait (NettyServer). */
        SPIN
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Integer getThreads() {
        return threads;
    }

    public void setThreads(Integer threads) {
        this.threads = threads;
    }

    public Integer getLoops() {
        return loops;
    }

    public void setLoops(Integer loops) {
        this.loops = loops;
    }

    public Long getBlockedHandOffMillis() {
        return blockedHandOffMillis;
    }

    public void setBlockedHandOffMillis(Long blockedHandOffMillis) {
        this.blockedHandOffMillis = blockedHandOffMillis;
    }

    public TimeSlicing getTimeSlicing() {
        return timeSlicing;
    }

    public void setTimeSlicing(TimeSlicing timeSlicing) {
        this.timeSlicing = timeSlicing;
    }

    public Long getLoopWarnMillis() {
        return loopWarnMillis;
    }

    public void setLoopWarnMillis(Long loopWarnMillis) {
        this.loopWarnMillis = loopWarnMillis;
    }

    public AcceptMode getAcceptMode() {
        return acceptMode;
    }

    public void setAcceptMode(AcceptMode acceptMode) {
        this.acceptMode = acceptMode;
    }

    public ThreadModel getThreadModel() {
        return threadModel;
    }

    public void setThreadModel(ThreadModel threadModel) {
        this.threadModel = threadModel;
    }

    public WriteStrategy getWriteStrategy() {
        return writeStrategy;
    }

    public void setWriteStrategy(WriteStrategy writeStrategy) {
        this.writeStrategy = writeStrategy;
    }

    public Integer getWriteBehindLimit() {
        return writeBehindLimit;
    }

    public void setWriteBehindLimit(Integer writeBehindLimit) {
        this.writeBehindLimit = writeBehindLimit;
    }

    public Boolean getUseAsyncIo() {
        return useAsyncIo;
    }

    public void setUseAsyncIo(Boolean useAsyncIo) {
        this.useAsyncIo = useAsyncIo;
    }
}
