package io.hybridconnector.spring.boot;

import io.hybridconnector.HybridHttp11Protocol;
import io.hybridconnector.jmx.ConnectorStats;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationListener;

/**
 * Binds {@link HybridConnectorMeters} for each of the application's hybrid connectors to every meter registry, once
 * the application has started: only then do the connectors exist and run (their counters are created when Tomcat
 * initializes them, after the registries). Runs on the thread that publishes {@link ApplicationStartedEvent}.
 */
final class HybridConnectorMetricsBinder implements ApplicationListener<ApplicationStartedEvent> {

    private final HybridProtocolConfigurer configurer;
    private final ObjectProvider<MeterRegistry> registries;

    HybridConnectorMetricsBinder(HybridProtocolConfigurer configurer, ObjectProvider<MeterRegistry> registries) {
        this.configurer = configurer;
        this.registries = registries;
    }

    @Override
    public void onApplicationEvent(ApplicationStartedEvent event) {
        if (event.getApplicationContext().getParent() != null) {
            return; // a child context (actuator on its own port) sees the same connectors' events: bind them once
        }
        for (HybridHttp11Protocol protocol : configurer.connectors()) {
            ConnectorStats stats = protocol.stats();
            if (stats != null) {
                HybridConnectorMeters meters = new HybridConnectorMeters(stats, connectorName(protocol));
                registries.orderedStream().forEach(meters::bindTo);
            }
        }
    }

    /** Tomcat's connector name without the quotes of its JMX form: {@code http-hybrid-8080}. */
    static String connectorName(HybridHttp11Protocol protocol) {
        String name = protocol.getName();
        return name.length() > 1 && name.startsWith("\"") && name.endsWith("\"") ? name.substring(1, name.length() - 1) :
                name;
    }
}
