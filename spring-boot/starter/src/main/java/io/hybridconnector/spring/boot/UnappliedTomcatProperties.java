package io.hybridconnector.spring.boot;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The standard {@code server.tomcat.*} properties that Boot hands to the connector but that have no effect on
 * {@code HybridHttp11Protocol}: each one the application sets gets one WARN naming it and what the connector does
 * instead, so that a tuning copied from a stock-NIO service is not silently lost. Every other {@code server.tomcat.*}
 * property applies as on stock NIO (it sets a Tomcat attribute that keeps its meaning here, or configures Tomcat
 * outside the connector). Runs on the thread that creates the web server.
 */
final class UnappliedTomcatProperties {

    private static final Log log = LogFactory.getLog(UnappliedTomcatProperties.class);

    /** Property name to what the connector does instead. */
    private static final Map<String, String> INSTEAD = new LinkedHashMap<>();

    static {
        INSTEAD.put("server.tomcat.threads.min-spare", "no thread waits for work: each event loop's leader serves " +
                "connections inline, and a thread is taken (and kept parked for reuse, 60 s) only when a request " +
                "blocks; threads are bounded by server.tomcat.threads.max or server.tomcat.hybrid.threads");
        INSTEAD.put("server.tomcat.threads.max-queue-capacity", "there is no task queue: a ready connection waits on " +
                "its event loop, and a request that blocks while all threads are busy waits for one (counted by " +
                "tomcat.hybrid.handoffs.waited.for.thread, and logged after server.tomcat.hybrid.loop-warn-millis); " +
                "bound waiting connections with server.tomcat.max-connections");
    }

    private final Environment environment;
    private final AtomicBoolean warned = new AtomicBoolean();

    UnappliedTomcatProperties(Environment environment) {
        this.environment = environment;
    }

    /** Logs one WARN per unapplied property the application set; at most once per application. */
    void warnOnce() {
        if (!warned.compareAndSet(false, true)) {
            return;
        }
        Binder binder = Binder.get(environment);
        INSTEAD.forEach((property, instead) -> binder.bind(property, String.class).ifBound(value ->
                log.warn(property + "=" + value + " has no effect on io.hybridconnector.HybridHttp11Protocol: " +
                        instead)));
    }
}
