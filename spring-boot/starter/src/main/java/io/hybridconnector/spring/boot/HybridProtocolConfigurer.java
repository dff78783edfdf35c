package io.hybridconnector.spring.boot;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.hybridconnector.HybridHttp11Protocol;

import org.apache.catalina.connector.Connector;

/**
 * Applies {@code server.tomcat.hybrid.*} to each {@link HybridHttp11Protocol} connector Boot creates, after Boot has
 * applied {@code server.tomcat.*}, and remembers the connectors so that their meters can be bound once they run.
 * Runs on the thread that creates the web server; {@link #connectors()} may be read from any thread.
 */
final class HybridProtocolConfigurer implements Consumer<Connector> {

    private final HybridConnectorProperties properties;
    private final UnappliedTomcatProperties unapplied;
    private final List<HybridHttp11Protocol> connectors = new CopyOnWriteArrayList<>();

    HybridProtocolConfigurer(HybridConnectorProperties properties, UnappliedTomcatProperties unapplied) {
        this.properties = properties;
        this.unapplied = unapplied;
    }

    @Override
    public void accept(Connector connector) {
        if (!(connector.getProtocolHandler() instanceof HybridHttp11Protocol protocol)) {
            return;
        }
        apply(properties, protocol);
        unapplied.warnOnce();
        connectors.add(protocol);
    }

    /** The connectors this application created, in creation order. */
    List<HybridHttp11Protocol> connectors() {
        return connectors;
    }

    /** Sets every property that was given; a wrong value is reported by the connector at start, by attribute name. */
    static void apply(HybridConnectorProperties p, HybridHttp11Protocol protocol) {
        if (p.getThreads() != null) {
            protocol.setThreads(p.getThreads());
        }
        if (p.getLoops() != null) {
            protocol.setLoops(p.getLoops());
        }
        if (p.getBlockedHandOffMillis() != null) {
            protocol.setBlockedHandOffMillis(p.getBlockedHandOffMillis());
        }
        if (p.getTimeSlicing() != null) {
            protocol.setTimeSlicing(attribute(p.getTimeSlicing()));
        }
        if (p.getLoopWarnMillis() != null) {
            protocol.setLoopWarnMillis(p.getLoopWarnMillis());
        }
        if (p.getAcceptMode() != null) {
            protocol.setAcceptMode(attribute(p.getAcceptMode()));
        }
        if (p.getThreadModel() != null) {
            protocol.setThreadModel(attribute(p.getThreadModel()));
        }
        if (p.getWriteStrategy() != null) {
            protocol.setWriteStrategy(attribute(p.getWriteStrategy()));
        }
        if (p.getWriteBehindLimit() != null) {
            protocol.setWriteBehindLimit(p.getWriteBehindLimit());
        }
        if (p.getUseAsyncIo() != null) {
            protocol.setUseAsyncIO(p.getUseAsyncIo());
        }
    }

    /** The attribute's value as server.xml spells it: {@code AUTO} is {@code auto}. */
    private static String attribute(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
