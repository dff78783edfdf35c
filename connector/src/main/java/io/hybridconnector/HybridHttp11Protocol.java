package io.hybridconnector;

import java.nio.channels.SocketChannel;

import io.hybridconnector.endpoint.HybridEndpoint;
import io.hybridconnector.jmx.ConnectorStats;
import io.hybridconnector.loop.LoopCounters;
import io.hybridconnector.schedule.ThreadModel;
import io.hybridconnector.write.WriteCounters;
import io.hybridconnector.write.WriteStrategy;

import org.apache.coyote.Processor;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * HTTP/1.1 on a same-thread endpoint: the thread that finds a connection readable reads the request, runs the
 * servlet through Tomcat's adapter and writes the response; a request that blocks moves nothing but the event loop,
 * and only once it really blocks. Install by copying the jar into {@code $CATALINA_BASE/lib} and setting
 * {@code protocol="io.hybridconnector.HybridHttp11Protocol"} on a {@code <Connector>}.
 * <p>
 * {@code threads} is the one setting an operator needs. Tomcat's attribute names keep their meaning; an attribute of
 * stock NIO that has no counterpart here is logged (WARN) with what the connector does instead, and start-up goes on;
 * only an attribute whose promise start-up would break stops it, with a message that names it.
 */
public class HybridHttp11Protocol extends AbstractHttp11Protocol<SocketChannel> {

    private static final Log log = LogFactory.getLog(HybridHttp11Protocol.class);

    /** Attributes set in server.xml that this connector cannot honour, reported together at init. */
    private final HybridSettings settings;

    public HybridHttp11Protocol() {
        super(new HybridEndpoint());
        settings = new HybridSettings("HybridHttp11Protocol", (HybridEndpoint) getEndpoint());
        // Tomcat's HTTP/1.1 default is 100; an idle keep-alive connection costs us nothing, so do not cut it.
        setMaxKeepAliveRequests(-1);
        endpoint().setReadAhead(true);
    }

    private HybridEndpoint endpoint() {
        return settings.endpoint();
    }

    // ------------------------------------------------------------------ the one parameter

    /** @return how many requests may run at once, blocked ones included (idle connections hold no thread) */
    public int getThreads() {
        return getMaxThreads();
    }

    public void setThreads(int threads) {
        settings.threads(threads);
    }

    // ------------------------------------------------------------------ advanced settings

    /** @return the number of event loops (selectors), by default one per CPU */
    public int getLoops() {
        return endpoint().getLoops();
    }

    public void setLoops(int loops) {
        settings.loops(loops);
    }

    /**
     * @return the hand-off budget: how long a request may hold an event loop while the loop's other connections may
     *         wait (a request that waits in Java moves at once, one that waits in the kernel or computes after this)
     */
    public long getBlockedHandOffMillis() {
        return endpoint().getBlockedHandOffMillis();
    }

    public void setBlockedHandOffMillis(long millis) {
        settings.blockedHandOffMillis(millis);
    }

    /** @return {@code off} (default) or {@code auto}: whether loops serve on pool threads while requests compute */
    public String getTimeSlicing() {
        return endpoint().isTimeSlicingEnabled() ? "auto" : "off";
    }

    /**
     * {@code auto} (default): while as many requests as there are CPUs compute beside the loops (found by the stall
     * detector), ready connections are served on pool threads, as stock NIO serves them, so that short requests get
     * the CPU the kernel gives every request thread; {@code off}: loops always serve inline (for measurements: the
     * fairness bound then does not hold beside computing requests).
     */
    public void setTimeSlicing(String mode) {
        settings.timeSlicing(mode);
    }

    /**
     * Deprecated and ignored, with a WARN at start: the connector changes no thread's priority. Accepted so that a
     * {@code server.xml} written for an earlier version still starts.
     */
    public void setComputingRequestPriority(int priority) {
        settings.computingRequestPriority(priority);
    }

    /** @return after how long a loop held by one request, or without a thread, is logged (WARN); -1: never */
    public long getLoopWarnMillis() {
        return endpoint().getLoopWarnMillis();
    }

    public void setLoopWarnMillis(long millis) {
        settings.loopWarnMillis(millis);
    }

    /** @return {@code acceptor} (default: Tomcat's acceptor thread) or {@code loops} (each loop accepts) */
    public String getAcceptMode() {
        return endpoint().getAcceptMode();
    }

    public void setAcceptMode(String mode) {
        settings.acceptMode(mode);
    }

    /** @return {@code hybrid} (default), {@code reactor}, {@code single} or {@code sync}: see {@link ThreadModel} */
    public String getThreadModel() {
        return endpoint().getThreadModel().attributeValue();
    }

    public void setThreadModel(String model) {
        settings.threadModel(model);
    }

    /** @return the write strategy's name, {@code hybrid} by default: the names are {@link WriteStrategy}'s */
    public String getWriteStrategy() {
        return endpoint().getWriteStrategy().attributeValue();
    }

    public void setWriteStrategy(String strategy) {
        settings.writeStrategy(strategy);
    }

    /** @return bytes a connection may leave behind for its loop to flush before the writer waits (hybrid) */
    public int getWriteBehindLimit() {
        return endpoint().getWriteBehindLimit();
    }

    public void setWriteBehindLimit(int bytes) {
        settings.writeBehindLimit(bytes);
    }

    // ------------------------------------------------------------------ slow clients (issue 40)

    /**
     * @return milliseconds a request's head and small body may take to arrive on its loop, before the extension
     *         {@link #getMinRequestDataRate} earns; {@code -1}: no limit but {@code connectionTimeout} between bytes
     */
    public long getRequestReadTimeout() {
        return endpoint().getRequestReadTimeout();
    }

    public void setRequestReadTimeout(long millis) {
        settings.requestReadTimeout(millis);
    }

    /** @return bytes per second that earn a request still arriving one more second; {@code -1}: none */
    public int getMinRequestDataRate() {
        return endpoint().getMinRequestDataRate();
    }

    public void setMinRequestDataRate(int bytesPerSecond) {
        settings.minRequestDataRate(bytesPerSecond);
    }

    /** @return the Unix domain socket file to listen on instead of a TCP port, or {@code null} */
    public String getUnixDomainSocketPath() {
        return endpoint().getUnixDomainSocketPath();
    }

    public void setUnixDomainSocketPath(String path) {
        endpoint().setUnixDomainSocketPath(path);
    }

    public String getUnixDomainSocketPathPermissions() {
        return endpoint().getUnixDomainSocketPathPermissions();
    }

    public void setUnixDomainSocketPathPermissions(String permissions) {
        endpoint().setUnixDomainSocketPathPermissions(permissions);
    }

    /**
     * @return as on stock NIO (Tomcat 10.1.58+): the socket file's directory is created with these permissions if
     *         missing and must allow no more; {@code null} (default): the directory is not checked (the socket file has
     *         its own permissions from the moment it appears)
     */
    public String getUnixDomainSocketParentPermissions() {
        return endpoint().getUnixDomainSocketParentPermissions();
    }

    public void setUnixDomainSocketParentPermissions(String permissions) {
        endpoint().setUnixDomainSocketParentPermissions(permissions);
    }

    /** @return as on stock NIO: who may own the socket file's directory besides the user running Tomcat */
    public String getUnixDomainSocketParentOwner() {
        return endpoint().getUnixDomainSocketParentOwner();
    }

    public void setUnixDomainSocketParentOwner(String owner) {
        endpoint().setUnixDomainSocketParentOwner(owner);
    }

    // ------------------------------------------------------------------ TLS (SSLEnabled="true", <SSLHostConfig>)

    /** @return the SSL implementation's class name; {@code null} means JSSE, as on Tomcat's own connectors */
    public String getSslImplementationName() {
        return endpoint().getSslImplementationName();
    }

    public void setSslImplementationName(String name) {
        endpoint().setSslImplementationName(name);
    }

    /** @return bytes of a TLS ClientHello buffered to find its SNI host name (default 65536) */
    public int getSniParseLimit() {
        return endpoint().getSniParseLimit();
    }

    public void setSniParseLimit(int limit) {
        endpoint().setSniParseLimit(limit);
    }

    // ------------------------------------------------------------------ attributes that cannot apply

    /**
     * @param useAsyncIO {@code true} (default, as on Tomcat's NIO): HTTP/2 and WebSocket read and write through the
     *                   socket's asynchronous operations, which the event loop completes; {@code false}: through
     *                   Tomcat's blocking and non-blocking calls
     */
    public void setUseAsyncIO(boolean useAsyncIO) {
        endpoint().setUseAsyncIO(useAsyncIO);
    }

    public boolean getUseAsyncIO() {
        return endpoint().getUseAsyncIO();
    }

    // Stock NIO's attributes that have no counterpart here: the connector starts, and says what it does instead.
    // Follows the public setters of Tomcat 10.1.59 org/apache/coyote/http11/Http11NioProtocol.java and
    // org/apache/tomcat/util/net/NioEndpoint.java (11.0.25: the same set); pollerThreadCount and acceptorThreadCount
    // are older Tomcats' and still appear in server.xml files. A setter Tomcat adds to either class belongs here or
    // above (DESIGN.md, "Re-sync checklist").

    public void setPollerThreadCount(int count) {
        settings.ignore("pollerThreadCount", Integer.toString(count), "there is no poller thread; the event loops " +
                "(loops=\"" + endpoint().getLoops() + "\", one per CPU core by default) select and serve connections");
    }

    public void setPollerThreadPriority(int priority) {
        settings.ignore("pollerThreadPriority", Integer.toString(priority), "there is no poller thread; the loop " +
                "threads run at normal priority");
    }

    public void setSelectorTimeout(long timeout) {
        settings.ignore("selectorTimeout", Long.toString(timeout), "the loops wake on events, tasks and their " +
                "timeout sweep (once a second); there is no selector timeout to set");
    }

    public void setAcceptorThreadCount(int count) {
        settings.ignore("acceptorThreadCount", Integer.toString(count), "one acceptor thread (acceptMode=\"acceptor\")" +
                " or the loops themselves (acceptMode=\"loops\") accept connections");
    }

    /**
     * Refused when {@code true}: the connector would listen on a port of its own instead of the socket the operator
     * handed over (inetd, systemd), which breaks what the attribute promises.
     */
    public void setUseInheritedChannel(boolean useInheritedChannel) {
        if (useInheritedChannel) {
            settings.reject("useInheritedChannel=\"true\": HybridHttp11Protocol cannot serve the channel inherited " +
                    "from the launching process; remove the attribute (or set it to false) and give the Connector a port");
        }
    }

    // ------------------------------------------------------------------ counters

    /** @return requests moved off an event loop because they blocked (stall detector and socket waits) */
    public long getHandOffs() {
        return counters().getHandOffs();
    }

    /** @return requests and events run inline by an event loop's leader */
    public long getRequestsInline() {
        return counters().getInlineRuns();
    }

    public long getSocketWaits() {
        return counters().getSocketWaits();
    }

    public long getCrossThreadTasks() {
        return counters().getCrossThreadTasks();
    }

    /** HTTP/2 streams run by a loop's leader after its ready connections, without waking another thread. */
    public long getDeferredTasks() {
        return counters().getDeferredTasks();
    }

    /** @return read/write buffer pairs kept for the next requests; unused ones are freed after 30 s */
    public int getPooledSocketBuffers() {
        return endpoint().getPooledSocketBuffers();
    }

    /**
     * The endpoint's executor, our own pool shown as Tomcat's {@code ThreadPoolExecutor} so that Tomcat's
     * {@code ThreadLocalLeakPreventionListener} renews its threads after a context stopped (as stock NIO's); see
     * {@code HybridSettings.executorForTomcat}. Any thread.
     */
    @Override
    public java.util.concurrent.Executor getExecutor() {
        return settings.executorForTomcat();
    }

    /** @return the connector's threads: loop leaders, requests that blocked, and parked threads */
    public int getEndpointThreadCount() {
        return endpoint().getCurrentThreadCount();
    }

    public LoopCounters counters() {
        return endpoint().counters();
    }

    /** @return the write path's counters (write calls, zero-byte writes, write-behind, ...) */
    public WriteCounters writeCounters() {
        return endpoint().writeCounters();
    }

    /** @return the connector's JMX bean, also registered as {@code <domain>:type=HybridConnector,name=...} */
    public ConnectorStats stats() {
        return settings.stats();
    }

    public void resetCounters() {
        settings.stats().resetCounters();
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void init() throws Exception {
        settings.checkBeforeInit();
        settings.warnIgnored(log);
        super.init();
        settings.registerStats(getHandler() == null ? null : getHandler().getGlobal(), getDomain(), getName(), log);
    }

    /**
     * Logs the effective settings once the connector runs: every setter has run by then (Spring Boot's customizers
     * set attributes after construction), and the socket is bound, so {@code maxKeepAliveRequests} reads as what is
     * in force (Tomcat reports 1 while unbound, which is all there is at init under {@code bindOnInit="false"}, as
     * Spring Boot sets).
     */
    @Override
    public void start() throws Exception {
        super.start();
        log.info(effectiveSettings());
    }

    @Override
    public void destroy() throws Exception {
        try {
            super.destroy();
        } finally {
            settings.unregisterStats();
        }
    }

    /**
     * One line with every setting that shapes the connector's behaviour, read from the values in force, logged once
     * at start. Header sizes are the request's and the response's: {@code maxHttpHeaderSize} is only their default.
     */
    String effectiveSettings() {
        return "HybridHttp11Protocol [" + getName() + "] " + settings.describeEndpoint() + " maxKeepAliveRequests=" +
                getMaxKeepAliveRequests() + " maxHttpRequestHeaderSize=" + getMaxHttpRequestHeaderSize() +
                " maxHttpResponseHeaderSize=" + getMaxHttpResponseHeaderSize() + " compression=" + getCompression();
    }

    @Override
    protected Processor createProcessor() {
        return new HybridHttp11Processor(this, settings.adapterFor(getAdapter()));
    }

    @Override
    protected Log getLog() {
        return log;
    }

    @Override
    protected String getNamePrefix() {
        return isSSLEnabled() ? "https-hybrid" : "http-hybrid";
    }
}
