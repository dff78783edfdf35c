package io.hybridconnector.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.hybridconnector.HybridHttp11Protocol;

import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;

/**
 * The starter's parts that need no running Boot application: properties reach the protocol's setters (unset ones
 * keep the connector's defaults), and the factory view finds Boot's two methods by name on a factory of either line's
 * shape and declines anything else.
 */
class HybridProtocolConfigurerTest {

    @Test
    void setPropertiesReachTheProtocolAndUnsetOnesKeepItsDefaults() {
        HybridHttp11Protocol defaults = new HybridHttp11Protocol();
        HybridHttp11Protocol protocol = new HybridHttp11Protocol();
        HybridConnectorProperties p = new HybridConnectorProperties();
        p.setThreads(12);
        p.setTimeSlicing(HybridConnectorProperties.TimeSlicing.AUTO);
        p.setWriteStrategy(HybridConnectorProperties.WriteStrategy.SPIN);
        p.setLoopWarnMillis(-1L);
        HybridProtocolConfigurer.apply(p, protocol);
        assertEquals(12, protocol.getThreads());
        assertEquals("auto", protocol.getTimeSlicing());
        assertEquals("spin", protocol.getWriteStrategy());
        assertEquals(-1, protocol.getLoopWarnMillis());
        assertEquals(defaults.getLoops(), protocol.getLoops());
        assertEquals(defaults.getBlockedHandOffMillis(), protocol.getBlockedHandOffMillis());
        assertEquals(defaults.getAcceptMode(), protocol.getAcceptMode());
        assertEquals(defaults.getWriteBehindLimit(), protocol.getWriteBehindLimit());
    }

    /** Boot's TomcatConnectorCustomizer, as either line declares it (only its shape matters). */
    public interface TomcatConnectorCustomizer {
        void customize(Connector connector);
    }

    /** A factory with Boot's two methods. */
    public static final class TomcatLikeFactory {
        String protocol;
        final List<TomcatConnectorCustomizer> customizers = new ArrayList<>();

        public void setProtocol(String protocol) {
            this.protocol = protocol;
        }

        public void addConnectorCustomizers(TomcatConnectorCustomizer... added) {
            customizers.addAll(List.of(added));
        }
    }

    @Test
    void findsBootsMethodsByNameAndRunsTheCustomizerOnEachConnector() {
        TomcatLikeFactory factory = new TomcatLikeFactory();
        BootTomcatFactory view = BootTomcatFactory.of(factory);
        view.setProtocol(HybridHttp11Protocol.class.getName());
        List<Connector> seen = new ArrayList<>();
        Consumer<Connector> customizer = seen::add;
        view.addConnectorCustomizer(customizer);
        assertEquals(HybridHttp11Protocol.class.getName(), factory.protocol);
        Connector connector = new Connector(factory.protocol);
        factory.customizers.forEach(c -> c.customize(connector));
        assertEquals(List.of(connector), seen);
        assertTrue(factory.customizers.get(0).toString().contains("Hybrid"));
    }

    @Test
    void declinesAFactoryThatIsNotTomcats() {
        assertNull(BootTomcatFactory.of(new Object()));
    }
}
