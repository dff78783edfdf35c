package io.hybridconnector;

import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

import javax.management.JMException;

import io.hybridconnector.endpoint.HybridEndpoint;
import io.hybridconnector.jmx.ConnectorStats;
import io.hybridconnector.loop.LoopCounters;
import io.hybridconnector.loop.ThreadModel;
import io.hybridconnector.write.WriteCounters;
import io.hybridconnector.write.WriteStrategy;

import org.apache.coyote.Processor;
import org.apache.coyote.RequestGroupInfo;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * HTTP/1.1 on a same-thread endpoint: the thread that finds a connection readable reads the request, runs the
 * servlet through Tomcat's adapter and writes the response; a request that blocks moves nothing but the event loop,
 * and only once it really blocks. Install by copying the jar into {@code $CATALINA_BASE/lib} and setting
 * {@code protocol="io.hybridconnector.HybridHttp11Protocol"} on a {@code <Connector>}.
 * <p>
 * {@code threads} is the one setting an operator needs. Tomcat's attribute names keep their meaning; an attribute
 * that cannot apply to this threading model stops start-up with a message that names it and what to use instead.
 */
public class HybridHttp11Protocol extends AbstractHttp11Protocol<SocketChannel> {

    private static final Log log = LogFactory.getLog(HybridHttp11Protocol.class);

    /** Attributes set in server.xml that this connector cannot honour, reported together at init. */
    private final List<String> configurationErrors = new ArrayList<>();
    private ConnectorStats stats;
    private volatile BlockPredictingAdapter predictingAdapter;

    public HybridHttp11Protocol() {
        super(new HybridEndpoint());
        // Tomcat's HTTP/1.1 default is 100; an idle keep-alive connection costs us nothing, so do not cut it.
        setMaxKeepAliveRequests(-1);
    }

    private HybridEndpoint endpoint() {
        return (HybridEndpoint) getEndpoint();
    }

    // ------------------------------------------------------------------ the one parameter

    /** @return how many requests may run at once, blocked ones included (idle connections hold no thread) */
    public int getThreads() {
        return getMaxThreads();
    }

    public void setThreads(int threads) {
        if (threads < 1) {
            configurationErrors.add("threads=\"" + threads + "\": must be a positive number of threads (default " +
                    HybridEndpoint.DEFAULT_THREADS + " on this machine)");
            return;
        }
        setMaxThreads(threads);
    }

    // ------------------------------------------------------------------ advanced settings

    /** @return the number of event loops (selectors), by default one per CPU */
    public int getLoops() {
        return endpoint().getLoops();
    }

    public void setLoops(int loops) {
        if (loops < 1) {
            configurationErrors.add("loops=\"" + loops + "\": must be 1 or more (default: one per CPU core)");
            return;
        }
        endpoint().setLoops(loops);
    }

    /** @return how long a waiting request may hold an event loop before the loop moves to another thread */
    public long getBlockedHandOffMillis() {
        return endpoint().getBlockedHandOffMillis();
    }

    public void setBlockedHandOffMillis(long millis) {
        if (millis < 1 || millis > 1000) {
            configurationErrors.add("blockedHandOffMillis=\"" + millis + "\": accepted values are 1 to 1000 (ms)");
            return;
        }
        endpoint().setBlockedHandOffMillis(millis);
    }

    /** @return {@code acceptor} (default: Tomcat's acceptor thread) or {@code loops} (each loop accepts) */
    public String getAcceptMode() {
        return endpoint().getAcceptMode();
    }

    public void setAcceptMode(String mode) {
        String m = mode == null ? "" : mode.trim();
        if (m.equalsIgnoreCase("loops")) {
            endpoint().setAcceptOnLoops(true);
        } else if (m.equalsIgnoreCase("acceptor")) {
            endpoint().setAcceptOnLoops(false);
        } else {
            configurationErrors.add("acceptMode=\"" + mode + "\": accepted values are acceptor (default: a " +
                    "dedicated acceptor thread hands connections to the loops), loops (each loop accepts)");
        }
    }

    /** @return {@code hybrid} (default), {@code reactor}, {@code single} or {@code sync}: see {@link ThreadModel} */
    public String getThreadModel() {
        return endpoint().getThreadModel().attributeValue();
    }

    public void setThreadModel(String model) {
        try {
            endpoint().setThreadModel(ThreadModel.parse(model));
        } catch (IllegalArgumentException e) {
            configurationErrors.add(e.getMessage());
        }
    }

    /** @return {@code hybrid} (default), {@code direct} or {@code spin}: see {@link WriteStrategy} */
    public String getWriteStrategy() {
        return endpoint().getWriteStrategy().attributeValue();
    }

    public void setWriteStrategy(String strategy) {
        try {
            endpoint().setWriteStrategy(WriteStrategy.parse(strategy));
        } catch (IllegalArgumentException e) {
            configurationErrors.add(e.getMessage());
        }
    }

    /** @return bytes a connection may leave behind for its loop to flush before the writer waits (hybrid) */
    public int getWriteBehindLimit() {
        return endpoint().getWriteBehindLimit();
    }

    public void setWriteBehindLimit(int bytes) {
        if (bytes < 8192 || bytes > 64 * 1024 * 1024) {
            configurationErrors.add("writeBehindLimit=\"" + bytes + "\": accepted values are 8192 to 67108864 " +
                    "(bytes per connection, default " + HybridEndpoint.DEFAULT_WRITE_BEHIND_LIMIT + ")");
            return;
        }
        endpoint().setWriteBehindLimit(bytes);
    }

    // ------------------------------------------------------------------ attributes that cannot apply

    public void setUseVirtualThreads(boolean useVirtualThreads) {
        if (useVirtualThreads) {
            configurationErrors.add("useVirtualThreads=\"true\": HybridHttp11Protocol runs requests on its event " +
                    "loops and moves a request to another thread only when it blocks; remove the attribute and " +
                    "size the connector with threads=\"N\"");
        }
    }

    public void setUseAsyncIO(boolean useAsyncIO) {
        if (useAsyncIO) {
            configurationErrors.add("useAsyncIO=\"true\": not offered by HybridHttp11Protocol; remove the attribute");
        }
    }

    public void setPollerThreadCount(int count) {
        configurationErrors.add("pollerThreadCount: there is no poller thread in HybridHttp11Protocol; " +
                "use loops=\"N\" (event loops, default one per CPU core)");
    }

    public void setPollerThreadPriority(int priority) {
        configurationErrors.add("pollerThreadPriority: there is no poller thread in HybridHttp11Protocol; " +
                "remove the attribute");
    }

    public void setSelectorTimeout(long timeout) {
        configurationErrors.add("selectorTimeout: NIO-only; HybridHttp11Protocol's loops wake on events and " +
                "timeouts; remove the attribute");
    }

    @Override
    public void setSSLEnabled(boolean sslEnabled) {
        if (sslEnabled) {
            configurationErrors.add("SSLEnabled=\"true\": TLS is not supported by HybridHttp11Protocol yet; " +
                    "use protocol=\"org.apache.coyote.http11.Http11NioProtocol\" for TLS connectors");
        }
    }

    @Override
    public void setUseSendfile(boolean useSendfile) {
        if (useSendfile) {
            configurationErrors.add("useSendfile=\"true\": sendfile is not supported by HybridHttp11Protocol " +
                    "yet; remove the attribute (static files are written from memory-mapped buffers by Tomcat)");
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
        return stats;
    }

    public void resetCounters() {
        stats.resetCounters();
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void init() throws Exception {
        if (!configurationErrors.isEmpty()) {
            throw new IllegalArgumentException("HybridHttp11Protocol cannot start with this configuration: " +
                    String.join("; ", configurationErrors));
        }
        super.init();
        Object global = getHandler() == null ? null : getHandler().getGlobal();
        stats = new ConnectorStats(endpoint(), global instanceof RequestGroupInfo ? (RequestGroupInfo) global : null);
        try {
            stats.register(getDomain(), getName());
        } catch (JMException e) {
            log.warn("Could not register the HybridConnector MBean for " + getName(), e);
        }
        log.info(effectiveSettings());
    }

    @Override
    public void destroy() throws Exception {
        try {
            super.destroy();
        } finally {
            if (stats != null) {
                stats.unregister();
            }
        }
    }

    /** One line with every setting that shapes the connector's behaviour, logged once at start. */
    String effectiveSettings() {
        return "HybridHttp11Protocol [" + getName() + "] threads=" + getThreads() + " loops=" + getLoops() +
                " (cores=" + Runtime.getRuntime().availableProcessors() + ") maxConnections=" +
                getMaxConnections() + " connectionTimeout=" + getConnectionTimeout() + "ms keepAliveTimeout=" +
                (getKeepAliveTimeout() < 0 ? "infinite" : getKeepAliveTimeout() + "ms") + " maxKeepAliveRequests=" +
                getMaxKeepAliveRequests() + " blockedHandOffMillis=" + getBlockedHandOffMillis() + " threadModel=" + getThreadModel() + " acceptMode=" + getAcceptMode() +
                " writeStrategy=" + getWriteStrategy() +
                " writeBehindLimit=" + getWriteBehindLimit() +
                " maxHttpHeaderSize=" + getMaxHttpHeaderSize() + " compression=" + getCompression();
    }

    @Override
    protected Processor createProcessor() {
        BlockPredictingAdapter a = predictingAdapter;
        if (a == null) {
            a = new BlockPredictingAdapter(getAdapter(), endpoint().classifier());
            predictingAdapter = a;
        }
        return new HybridHttp11Processor(this, a);
    }

    @Override
    protected Log getLog() {
        return log;
    }

    @Override
    protected String getNamePrefix() {
        return "http-hybrid";
    }
}
