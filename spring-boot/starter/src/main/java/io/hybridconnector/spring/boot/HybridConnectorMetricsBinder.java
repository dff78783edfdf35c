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
                HybridConnectorMeters meters = new HybridConnectorMeters(stats, connectorName(stats, protocol));
                registries.orderedStream().forEach(meters::bindTo);
            }
        }
    }

    /**
     * The MBean's {@code name} without the quotes of its JMX form ({@code http-hybrid-8080}), so that a meter's tag
     * and its MBean name the connector alike: on {@code server.port=0} Tomcat's name gains the port only after the
     * MBean was registered ({@code http-hybrid-auto-1} vs {@code http-hybrid-auto-1-40123}).
     */
    static String connectorName(ConnectorStats stats, HybridHttp11Protocol protocol) {
        String name = stats.getObjectName() == null ? protocol.getName() : stats.getObjectName().getKeyProperty("name");
        return name.length() > 1 && name.startsWith("\"") && name.endsWith("\"") ? name.substring(1, name.length() - 1) :
                name;
    }
}
