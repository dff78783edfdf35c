package io.hybridconnector;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import javax.management.JMException;

import io.hybridconnector.endpoint.EndpointSettings;
import io.hybridconnector.endpoint.HybridEndpoint;
import io.hybridconnector.jmx.ConnectorStats;
import io.hybridconnector.loop.LoopThreadPool;
import io.hybridconnector.schedule.ThreadModel;
import io.hybridconnector.write.WriteStrategy;

import org.apache.coyote.Adapter;
import org.apache.coyote.RequestGroupInfo;
import org.apache.juli.logging.Log;
import org.apache.tomcat.util.threads.ResizableExecutor;

/**
 * What our protocols ({@link HybridHttp11Protocol}, {@link HybridAjpProtocol}) share beyond Tomcat's base classes:
 * the endpoint's own attributes with their accepted values, the attributes that cannot apply, and the connector's
 * MBean. A wrong value is collected, not thrown, so that start-up reports every wrong attribute at once, by name.
 */
final class HybridSettings {

    private final String protocolName;
    private final HybridEndpoint endpoint;
    private final List<String> errors = new ArrayList<>();
    /** Attributes of stock NIO with no counterpart here: logged at init, start-up goes on. */
    private final List<String> ignored = new ArrayList<>();
    private ConnectorStats stats;
    private volatile BlockPredictingAdapter adapter;

    HybridSettings(String protocolName, HybridEndpoint endpoint) {
        this.protocolName = protocolName;
        this.endpoint = endpoint;
    }

    HybridEndpoint endpoint() {
        return endpoint;
    }

    void reject(String message) {
        errors.add(message);
    }

    /** An attribute that has no counterpart in this connector: a WARN at init naming it and what happens instead. */
    void ignore(String attribute, String value, String instead) {
        ignored.add(attribute + "=\"" + value + "\" is ignored by " + protocolName + ": " + instead);
    }

    /** Logs one WARN per ignored attribute; called at init. */
    void warnIgnored(Log log) {
        for (String message : ignored) {
            log.warn(message);
        }
    }

    void threads(int threads) {
        if (threads < 1) {
            reject("threads=\"" + threads + "\": must be a positive number of threads (default " +
                    HybridEndpoint.DEFAULT_THREADS + " on this machine)");
        } else {
            endpoint.setMaxThreads(threads);
        }
    }

    void loops(int loops) {
        if (loops < 1) {
            reject("loops=\"" + loops + "\": must be 1 or more (default: one per CPU core)");
        } else {
            endpoint.setLoops(loops);
        }
    }

    void blockedHandOffMillis(long millis) {
        if (millis < 1 || millis > 1000) {
            reject("blockedHandOffMillis=\"" + millis + "\": accepted values are 1 to 1000 (ms)");
        } else {
            endpoint.setBlockedHandOffMillis(millis);
        }
    }

    void timeSlicing(String mode) {
        String m = mode == null ? "" : mode.trim();
        if (m.equalsIgnoreCase("auto")) {
            endpoint.setTimeSlicingEnabled(true);
        } else if (m.equalsIgnoreCase("off")) {
            endpoint.setTimeSlicingEnabled(false);
        } else {
            reject("timeSlicing=\"" + mode + "\": accepted values are auto (default: while as many requests as " +
                    "there are CPUs compute beside the loops, ready connections are served on pool threads, as stock " +
                    "NIO serves them) and off (loops serve inline, a request that holds its loop past its share of " +
                    "blockedHandOffMillis gives the loop away)");
        }
    }

    void loopWarnMillis(long millis) {
        if (millis < -1 || millis == 0) {
            reject("loopWarnMillis=\"" + millis + "\": accepted values are -1 (never warn) or a positive number of ms" +
                    " (default " + HybridEndpoint.DEFAULT_LOOP_WARN_MILLIS + ")");
        } else {
            endpoint.setLoopWarnMillis(millis);
        }
    }

    void acceptMode(String mode) {
        String m = mode == null ? "" : mode.trim();
        if (m.equalsIgnoreCase("loops")) {
            endpoint.setAcceptOnLoops(true);
        } else if (m.equalsIgnoreCase("acceptor")) {
            endpoint.setAcceptOnLoops(false);
        } else {
            reject("acceptMode=\"" + mode + "\": accepted values are loops (default: each loop accepts), acceptor " +
                    "(Tomcat's acceptor thread hands connections to the loops)");
        }
    }

    void threadModel(String model) {
        try {
            endpoint.setThreadModel(ThreadModel.parse(model));
        } catch (IllegalArgumentException e) {
            reject(e.getMessage());
        }
    }

    void writeStrategy(String strategy) {
        try {
            endpoint.setWriteStrategy(WriteStrategy.parse(strategy));
        } catch (IllegalArgumentException e) {
            reject(e.getMessage());
        }
    }

    void requestReadTimeout(long millis) {
        if (millis != -1 && (millis < 1000 || millis > 3_600_000)) {
            reject("requestReadTimeout=\"" + millis + "\": accepted values are -1 (no limit) or 1000 to 3600000 " +
                    "(milliseconds, default " + EndpointSettings.DEFAULT_REQUEST_READ_TIMEOUT + ")");
        } else {
            endpoint.setRequestReadTimeout(millis);
        }
    }

    void minRequestDataRate(int bytesPerSecond) {
        if (bytesPerSecond != -1 && bytesPerSecond < 1) {
            reject("minRequestDataRate=\"" + bytesPerSecond + "\": accepted values are -1 (none) or 1 and more " +
                    "(bytes per second, default " + EndpointSettings.DEFAULT_MIN_REQUEST_DATA_RATE + ")");
        } else {
            endpoint.setMinRequestDataRate(bytesPerSecond);
        }
    }

    void writeBehindLimit(int bytes) {
        if (bytes < 8192 || bytes > 64 * 1024 * 1024) {
            reject("writeBehindLimit=\"" + bytes + "\": accepted values are 8192 to 67108864 (bytes per " +
                    "connection, default " + HybridEndpoint.DEFAULT_WRITE_BEHIND_LIMIT + ")");
        } else {
            endpoint.setWriteBehindLimit(bytes);
        }
    }

    /**
     * Deprecated: requests once ran below normal priority while they computed. The connector changes no thread's
     * priority any more (a thread a servlet started inherited the lowered one for life); the attribute is accepted
     * so that existing {@code server.xml} files start, with a WARN.
     */
    void computingRequestPriority(int priority) {
        ignore("computingRequestPriority", Integer.toString(priority), "deprecated: the connector no longer changes " +
                "any thread's priority; a request that computes past its share of blockedHandOffMillis gives its " +
                "loop away, and timeSlicing=\"auto\" serves every request on a thread of its own while requests " +
                "compute, as on stock NIO");
    }

    /** @return Catalina's adapter wrapped to learn which request classes block; one per connector */
    BlockPredictingAdapter adapterFor(Adapter catalina) {
        BlockPredictingAdapter a = adapter;
        if (a == null) {
            a = new BlockPredictingAdapter(catalina, endpoint.classifier(),
                    () -> TimeUnit.MILLISECONDS.toNanos(endpoint.getBlockedHandOffMillis()));
            adapter = a;
        }
        return a;
    }

    /** @throws IllegalArgumentException listing every attribute that was wrong, with what is accepted */
    void checkBeforeInit() {
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(protocolName + " cannot start with this configuration: " +
                    String.join("; ", errors));
        }
    }

    /** Creates and registers the connector's MBean; a failure to register is logged, not fatal. */
    void registerStats(Object global, String domain, String name, Log log) {
        stats = new ConnectorStats(endpoint,
                global instanceof RequestGroupInfo ? (RequestGroupInfo) global : null);
        try {
            stats.register(domain, name);
        } catch (JMException e) {
            log.warn("Could not register the HybridConnector MBean for " + name, e);
        }
    }

    ConnectorStats stats() {
        return stats;
    }

    void unregisterStats() {
        if (stats != null) {
            stats.unregister();
        }
    }

    /**
     * What the protocol's {@code getExecutor()} returns: the endpoint's executor, except that our own thread pool is
     * shown as Tomcat's {@code ThreadPoolExecutor} type ({@link LoopThreadPool#tomcatView()}), the type Tomcat's
     * {@code ThreadLocalLeakPreventionListener} looks for to renew a connector's threads after a context stopped.
     * Any thread; not on any request's path (Tomcat's listener and the connector's JMX attributes call it).
     */
    Executor executorForTomcat() {
        Executor e = endpoint.getExecutor();
        return e instanceof LoopThreadPool ? ((LoopThreadPool) e).tomcatView() : e;
    }

    /**
     * Where work that leaves the loops runs, for the start line: an operator's executor by its name (a shared
     * {@code <Executor>}'s {@code name}, else its class) with its {@code maxThreads}, and what stays on the connector's
     * own threads whatever the executor (issue 39, item 3: the line said only {@code threads=200} and the class).
     */
    private String offLoopExecutor() {
        Executor e = endpoint.getExternalExecutor();
        if (e != null) {
            String name = e instanceof org.apache.catalina.Executor ? ((org.apache.catalina.Executor) e).getName() :
                    e.getClass().getSimpleName();
            String max = e instanceof ResizableExecutor ? " maxThreads=" + ((ResizableExecutor) e).getMaxThreads() : "";
            return name + " (" + e.getClass().getSimpleName() + max + ": tasks, time-sliced runs, requests of a " +
                    "class known to block, the requests after one that left its loop and, once a class blocked, a new TLS " +
                    "connection's first request; loop leaders and a request that blocks before its class is known: " +
                    "connector threads, " +
                    "threads=" + endpoint.getMaxThreads() + ")";
        }
        return endpoint.getUseVirtualThreads() ? "virtual-threads" : "connector-threads";
    }

    /** The endpoint's part of the effective settings logged at start. */
    String describeEndpoint() {
        return "threads=" + endpoint.getMaxThreads() + " loops=" + endpoint.getLoops() + " (cores=" +
                Runtime.getRuntime().availableProcessors() + ") threadModel=" +
                endpoint.getThreadModel().attributeValue() + " acceptMode=" + endpoint.getAcceptMode() +
                " writeStrategy=" + endpoint.getWriteStrategy().attributeValue() + " writeBehindLimit=" +
                endpoint.getWriteBehindLimit() + " blockedHandOffMillis=" + endpoint.getBlockedHandOffMillis() +
                " timeSlicing=" + (endpoint.isTimeSlicingEnabled() ? "auto" : "off") +
                " loopWarnMillis=" + endpoint.getLoopWarnMillis() +
                " offLoopExecutor=" + offLoopExecutor() + " useAsyncIO=" + endpoint.getUseAsyncIO() +
                (endpoint.isReadAhead() ? " requestReadTimeout=" + endpoint.getRequestReadTimeout() +
                        "ms minRequestDataRate=" + endpoint.getMinRequestDataRate() : "") +
                " maxConnections=" + endpoint.getMaxConnections() + " connectionTimeout=" +
                endpoint.getConnectionTimeout() + "ms keepAliveTimeout=" +
                (endpoint.getKeepAliveTimeout() < 0 ? "infinite" : endpoint.getKeepAliveTimeout() + "ms");
    }
}
