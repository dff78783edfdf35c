package io.hybridconnector;

import java.nio.channels.SocketChannel;

import io.hybridconnector.endpoint.HybridEndpoint;
import io.hybridconnector.jmx.ConnectorStats;

import org.apache.coyote.Processor;
import org.apache.coyote.ajp.AbstractAjpProtocol;
import org.apache.coyote.ajp.AjpProcessor;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * AJP/1.3 (Apache httpd's {@code mod_proxy_ajp} in front) on the same-thread endpoint: the thread that finds a
 * connection readable reads the forwarded request, runs the servlet and writes the response packets. Tomcat's AJP
 * attributes ({@code secret}, {@code secretRequired}, {@code allowedRequestAttributesPattern}, {@code packetSize},
 * ...) keep their meaning and safe defaults; {@code threads} sizes it, as for {@link HybridHttp11Protocol}.
 * <p>
 * Install like the HTTP connector: {@code protocol="io.hybridconnector.HybridAjpProtocol"}.
 */
public class HybridAjpProtocol extends AbstractAjpProtocol<SocketChannel> {

    private static final Log log = LogFactory.getLog(HybridAjpProtocol.class);

    private final HybridSettings settings;

    public HybridAjpProtocol() {
        super(new HybridEndpoint());
        settings = new HybridSettings("HybridAjpProtocol", (HybridEndpoint) getEndpoint());
    }

    public int getThreads() {
        return getMaxThreads();
    }

    public void setThreads(int threads) {
        settings.threads(threads);
    }

    public int getLoops() {
        return settings.endpoint().getLoops();
    }

    public void setLoops(int loops) {
        settings.loops(loops);
    }

    public String getAcceptMode() {
        return settings.endpoint().getAcceptMode();
    }

    public void setAcceptMode(String mode) {
        settings.acceptMode(mode);
    }

    public String getWriteStrategy() {
        return settings.endpoint().getWriteStrategy().attributeValue();
    }

    public void setWriteStrategy(String strategy) {
        settings.writeStrategy(strategy);
    }

    /** @return the connector's JMX bean, also registered as {@code <domain>:type=HybridConnector,name=...} */
    public ConnectorStats stats() {
        return settings.stats();
    }

    @Override
    public void init() throws Exception {
        settings.checkBeforeInit();
        super.init();
        settings.registerStats(getHandler() == null ? null : getHandler().getGlobal(), getDomain(), getName(), log);
    }

    /** The effective settings, once every setter ran and the socket is bound (as {@link HybridHttp11Protocol}). */
    @Override
    public void start() throws Exception {
        super.start();
        log.info("HybridAjpProtocol [" + getName() + "] " + settings.describeEndpoint() + " packetSize=" +
                getPacketSize() + " secretRequired=" + getSecretRequired());
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
     * The endpoint's executor, our own pool shown as Tomcat's {@code ThreadPoolExecutor} so that Tomcat's
     * {@code ThreadLocalLeakPreventionListener} renews its threads after a context stopped (as stock NIO's); see
     * {@code HybridSettings.executorForTomcat}. Any thread.
     */
    @Override
    public java.util.concurrent.Executor getExecutor() {
        return settings.executorForTomcat();
    }

    @Override
    protected Processor createProcessor() {
        return new AjpProcessor(this, settings.adapterFor(getAdapter()));
    }

    @Override
    protected Log getLog() {
        return log;
    }

    @Override
    protected String getNamePrefix() {
        return "ajp-hybrid";
    }
}
