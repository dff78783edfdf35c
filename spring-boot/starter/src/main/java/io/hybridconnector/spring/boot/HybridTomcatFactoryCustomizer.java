package io.hybridconnector.spring.boot;

import io.hybridconnector.HybridHttp11Protocol;

import org.springframework.boot.web.server.ConfigurableWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * Switches Boot's embedded Tomcat (servlet or reactive) to {@link HybridHttp11Protocol} and adds the connector
 * customizer that applies {@code server.tomcat.hybrid.*}. Ordered last, so that its connector customizer runs after
 * Boot's own {@code server.tomcat.*} ones and the hybrid properties have the last word. Runs on the thread that
 * creates the web server.
 */
final class HybridTomcatFactoryCustomizer implements WebServerFactoryCustomizer<ConfigurableWebServerFactory>, Ordered {

    private final HybridProtocolConfigurer configurer;

    HybridTomcatFactoryCustomizer(HybridProtocolConfigurer configurer) {
        this.configurer = configurer;
    }

    @Override
    public void customize(ConfigurableWebServerFactory factory) {
        BootTomcatFactory tomcat = BootTomcatFactory.of(factory);
        if (tomcat == null) {
            return;
        }
        tomcat.setProtocol(HybridHttp11Protocol.class.getName());
        tomcat.addConnectorCustomizer(configurer);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
