package io.hybridconnector.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Runs Boot's embedded Tomcat on {@code io.hybridconnector.HybridHttp11Protocol} whenever this starter is on the
 * class path, unless {@code server.tomcat.hybrid.enabled=false}; publishes the connector's counters to Micrometer when
 * the application has it. Only the factory's protocol changes: every other part of Boot's Tomcat set-up (its
 * {@code server.tomcat.*} properties, HTTP/2, SSL, graceful shutdown, actuator's {@code tomcat.*} meters) stays Boot's.
 */
@AutoConfiguration
@ConditionalOnClass(name = {"org.apache.catalina.startup.Tomcat", "io.hybridconnector.HybridHttp11Protocol"})
@ConditionalOnProperty(prefix = "server.tomcat.hybrid", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(HybridConnectorProperties.class)
public class HybridConnectorAutoConfiguration {

    @Bean
    HybridProtocolConfigurer hybridProtocolConfigurer(HybridConnectorProperties properties, Environment environment) {
        return new HybridProtocolConfigurer(properties, new UnappliedTomcatProperties(environment));
    }

    @Bean
    HybridTomcatFactoryCustomizer hybridTomcatFactoryCustomizer(HybridProtocolConfigurer configurer) {
        return new HybridTomcatFactoryCustomizer(configurer);
    }

    /** Micrometer is optional: without it this configuration is skipped and nothing refers to its classes. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class Metrics {

        @Bean
        HybridConnectorMetricsBinder hybridConnectorMetricsBinder(HybridProtocolConfigurer configurer,
                ObjectProvider<MeterRegistry> registries) {
            return new HybridConnectorMetricsBinder(configurer, registries);
        }
    }
}
