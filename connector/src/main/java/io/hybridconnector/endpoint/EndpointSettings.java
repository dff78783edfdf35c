package io.hybridconnector.endpoint;

import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;

import io.hybridconnector.schedule.ThreadModel;
import io.hybridconnector.write.WriteStrategy;

import org.apache.tomcat.util.net.AbstractEndpoint;
import org.apache.tomcat.util.net.SSLHostConfig;

/**
 * The endpoint's configuration: the connector's own attributes (thread model, write strategy, loops, budgets) and the
 * stock-NIO attributes it keeps (Unix sockets, TLS implementation, the operator's executor), each with its default
 * beside it. Read when the endpoint starts (and by connections as they are made); set by {@code HybridSettings} from
 * {@code server.xml} on Tomcat's lifecycle thread. Nothing here runs per request.
 */
public abstract class EndpointSettings extends AbstractEndpoint<SocketChannel,SocketChannel> {

    /** Default for {@code threads}: enough for requests that block on JDBC or remote calls; idle ones hold none. */
    public static final int DEFAULT_THREADS = Math.max(200, 16 * Runtime.getRuntime().availableProcessors());
    /**
     * A loop held by one request, or without a thread, for longer than this is logged with the request and its stack.
     * A second: far above the hand-off budget, so it fires only where the bound cannot hold (no free thread, or no
     * other connection to serve), and below a client's patience.
     */
    public static final long DEFAULT_LOOP_WARN_MILLIS = 1000;
    /** Per connection: a 100 KB response's rest after a 16 KB send buffer fits with room to spare. */
    public static final int DEFAULT_WRITE_BEHIND_LIMIT = 256 * 1024;
    /**
     * How long a request may take to arrive, before extensions for the bytes it sends ({@link RequestReadAhead}):
     * Apache httpd's {@code mod_reqtimeout} default, {@code header=20 body=20}. No client on a working link needs more
     * for a head and a body of a few kilobytes.
     */
    public static final long DEFAULT_REQUEST_READ_TIMEOUT = 20_000;
    /**
     * A second more for each this many bytes received: httpd's {@code MinRate=500}. A 2G link (about 5 KB/s) sends ten
     * times that.
     */
    public static final int DEFAULT_MIN_REQUEST_DATA_RATE = 500;
    // Set from server.xml (lifecycle thread) before start; read at start, and by connections as they are made.

    /** The executor the operator gave ({@link #setExecutor}); {@code null}: none. Any thread (volatile). */
    volatile Executor externalExecutor;
    /**
     * {@code timeSlicing="auto"} (default): while as many requests as there are CPUs compute beside the loops, ready
     * connections are taken in turn by pool threads, short ones first ({@code LoopThreadPool.executeInTurn}). Measured
     * on the quick fairness map in one session (2026-12-06): 25 and 22 of 28 cells within issue 38's bounds (two runs),
     * {@code off} (inline) 21 (bench/fairness-map/results/2026-12-06-slicing-in-turn).
     */
    boolean timeSlicingEnabled = true;
    ThreadModel threadModel = ThreadModel.HYBRID;
    WriteStrategy writeStrategy = WriteStrategy.HYBRID;
    /**
     * {@code acceptMode="loops"} (default): each loop accepts on the shared listening socket; no acceptor thread. A new
     * connection costs no queue, no wake-up and no thread switch: 0.78x stock NIO's CPU per connection instead of 1.0x
     * with Tomcat's acceptor thread, one core (README, issue 14).
     */
    boolean acceptOnLoops = true;
    String unixDomainSocketPath;
    String unixDomainSocketPathPermissions;
    String unixDomainSocketParentPermissions;
    String unixDomainSocketParentOwner;
    int writeBehindLimit = DEFAULT_WRITE_BEHIND_LIMIT;
    /** The protocol is HTTP/1.1: the loops hold new requests until they can run ({@link RequestReadAhead}). */
    boolean readAhead;
    long requestReadTimeout = DEFAULT_REQUEST_READ_TIMEOUT;
    int minRequestDataRate = DEFAULT_MIN_REQUEST_DATA_RATE;
    String sslImplementationName;
    int sniParseLimit = 64 * 1024;
    int loopCount = Runtime.getRuntime().availableProcessors();
    long blockedHandOffMillis = 5;
    long loopWarnMillis = DEFAULT_LOOP_WARN_MILLIS;

    public void setLoops(int loops) {
        this.loopCount = loops;
    }

    /** @return whether loops may serve on pool threads while requests compute beside them ({@code timeSlicing}) */
    public boolean isTimeSlicingEnabled() {
        return timeSlicingEnabled;
    }

    public void setTimeSlicingEnabled(boolean enabled) {
        this.timeSlicingEnabled = enabled;
    }

    public long getBlockedHandOffMillis() {
        return blockedHandOffMillis;
    }

    public void setBlockedHandOffMillis(long millis) {
        this.blockedHandOffMillis = millis;
    }

    public long getLoopWarnMillis() {
        return loopWarnMillis;
    }

    public void setLoopWarnMillis(long millis) {
        this.loopWarnMillis = millis;
    }

    public ThreadModel getThreadModel() {
        return threadModel;
    }

    public void setThreadModel(ThreadModel threadModel) {
        this.threadModel = threadModel;
    }

    /** @return {@code loops} (default) or {@code acceptor} (Tomcat's acceptor thread) */
    public String getAcceptMode() {
        return acceptOnLoops ? "loops" : "acceptor";
    }

    public void setAcceptOnLoops(boolean acceptOnLoops) {
        this.acceptOnLoops = acceptOnLoops;
    }

    public WriteStrategy getWriteStrategy() {
        return writeStrategy;
    }

    public void setWriteStrategy(WriteStrategy writeStrategy) {
        this.writeStrategy = writeStrategy;
    }

    public boolean isReadAhead() {
        return readAhead;
    }

    /** Called by the HTTP/1.1 protocol: its requests' heads and small bodies are read on the loops first. */
    public void setReadAhead(boolean readAhead) {
        this.readAhead = readAhead;
    }

    /** @return milliseconds a request may take to arrive before its extensions; -1: no limit but the read timeout */
    public long getRequestReadTimeout() {
        return requestReadTimeout;
    }

    public void setRequestReadTimeout(long millis) {
        this.requestReadTimeout = millis;
    }

    /** @return bytes per second that earn a request one more second to arrive; -1: none */
    public int getMinRequestDataRate() {
        return minRequestDataRate;
    }

    public void setMinRequestDataRate(int bytesPerSecond) {
        this.minRequestDataRate = bytesPerSecond;
    }

    public int getWriteBehindLimit() {
        return writeBehindLimit;
    }

    public void setWriteBehindLimit(int bytes) {
        this.writeBehindLimit = bytes;
    }

    /**
     * An executor the operator gives ({@code executor="..."} naming a shared {@code <Executor>}, Spring Boot's
     * virtual threads): work that leaves the loops runs there, as stock NIO runs all its requests there. That is
     * Tomcat's own executor work (HTTP/2 streams started off a loop, asynchronous dispatches from application threads),
     * and the requests of a connection whose previous request left its loop (it blocked): with virtual threads, such a
     * request waits on a virtual thread instead of holding one of {@code threads}. The loops, and requests that block
     * the first time, stay on the connector's own threads. The connector never shuts this executor down.
     */
    @Override
    public void setExecutor(Executor executor) {
        this.externalExecutor = executor;
    }

    /** @return the executor the operator gave, or {@code null} */
    public Executor getExternalExecutor() {
        return externalExecutor;
    }

    public String getSslImplementationName() {
        return sslImplementationName;
    }

    public void setSslImplementationName(String name) {
        this.sslImplementationName = name;
    }

    /** @return how many bytes of a ClientHello are buffered to find its SNI host name */
    public int getSniParseLimit() {
        return sniParseLimit;
    }

    public void setSniParseLimit(int sniParseLimit) {
        this.sniParseLimit = sniParseLimit;
    }

    /** @return the socket file this endpoint listens on instead of a TCP port, or {@code null} */
    public String getUnixDomainSocketPath() {
        return unixDomainSocketPath;
    }

    public void setUnixDomainSocketPath(String path) {
        this.unixDomainSocketPath = path;
    }

    public String getUnixDomainSocketPathPermissions() {
        return unixDomainSocketPathPermissions;
    }

    public void setUnixDomainSocketPathPermissions(String permissions) {
        this.unixDomainSocketPathPermissions = permissions;
    }

    /** @return permissions the socket file's directory is created with, and must not exceed; {@code null}: unchecked */
    public String getUnixDomainSocketParentPermissions() {
        return unixDomainSocketParentPermissions;
    }

    public void setUnixDomainSocketParentPermissions(String permissions) {
        this.unixDomainSocketParentPermissions = permissions;
    }

    /** @return who may own the socket file's directory besides the user running Tomcat ({@code ""}: anyone) */
    public String getUnixDomainSocketParentOwner() {
        return unixDomainSocketParentOwner;
    }

    public void setUnixDomainSocketParentOwner(String owner) {
        this.unixDomainSocketParentOwner = owner;
    }

    /**
     * Sets Tomcat's own executor field ({@code AbstractEndpoint.setExecutor}), which {@link #setExecutor} does not: that
     * one records the operator's executor. The endpoint gives Tomcat its loop pool at start and takes it back at stop.
     */
    final void useAsTomcatExecutor(Executor executor) {
        super.setExecutor(executor);
    }

    // ------------------------------------------------------------------ Tomcat 9.0's abstract methods
    // No @Override: each is abstract in 9.0's AbstractEndpoint and absent (or, getDeferAccept, a deprecated public
    // method) in 10.1/11.0, so the same source compiles and links on every line.

    /** Tomcat 9.0: abstract ({@code NioEndpoint} answers false); 10.1: public, deprecated, false; 11.0: absent. */
    public boolean getDeferAccept() {
        return false;
    }

    /**
     * Tomcat 9.0 only: {@code AbstractHttp11Protocol.configureUpgradeProtocol} registers an ALPN protocol (h2) only if
     * this is true. 10.1/11.0 ask {@code isSSLEnabled()} instead; the JDK 17 the connector requires always has ALPN.
     */
    public boolean isAlpnSupported() {
        return isSSLEnabled();
    }

    /** Tomcat 9.0 only (abstract; a no-op in its {@code AbstractJsseEndpoint}, used by APR alone). */
    protected void setDefaultSslHostConfig(SSLHostConfig sslHostConfig) {
    }
}
