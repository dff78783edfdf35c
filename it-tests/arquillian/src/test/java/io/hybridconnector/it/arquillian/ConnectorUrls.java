package io.hybridconnector.it.arquillian;

import java.net.URI;
import java.util.Map;

/**
 * The deployed WAR's base URL through each HTTP connector of the embedded Tomcat, keyed by protocol class name.
 * Injected into tests with {@code @ArquillianResource}; made by {@link SecondConnectorExtension}. Immutable.
 */
final class ConnectorUrls {

    private final Map<String, URI> byProtocol;

    ConnectorUrls(Map<String, URI> byProtocol) {
        this.byProtocol = Map.copyOf(byProtocol);
    }

    /** The base URL, ending in {@code /}, of the deployment through {@code connector}. */
    URI of(ConnectorUnderTest connector) {
        URI base = byProtocol.get(connector.protocol);
        if (base == null) {
            throw new IllegalStateException("no connector with protocol " + connector.protocol + " in " + byProtocol);
        }
        return base;
    }

    @Override
    public String toString() {
        return byProtocol.toString();
    }
}
