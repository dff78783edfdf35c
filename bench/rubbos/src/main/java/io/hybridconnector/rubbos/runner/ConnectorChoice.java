package io.hybridconnector.rubbos.runner;

import java.util.Locale;

/** The two HTTP/1.1 connectors the benchmark compares, by their server.xml protocol class names. */
public enum ConnectorChoice {

    /** Tomcat's default since version 8: the NIO poller hands every readable socket to a worker thread. */
    STOCK("org.apache.coyote.http11.Http11NioProtocol"),
    /** This project's connector. */
    HYBRID("io.hybridconnector.HybridHttp11Protocol");

    public final String protocol;

    ConnectorChoice(String protocol) {
        this.protocol = protocol;
    }

    /** @return the lower-case name used on command lines and in file names */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ConnectorChoice of(String label) {
        for (ConnectorChoice c : values()) {
            if (c.label().equalsIgnoreCase(label) || c.protocol.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown connector '" + label + "': use stock or hybrid");
    }
}
