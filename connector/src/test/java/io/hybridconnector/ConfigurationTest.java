package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.catalina.LifecycleState;
import org.apache.tomcat.util.IntrospectionUtils;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An attribute that cannot apply stops start-up with a message naming it and what to use instead.
 */
class ConfigurationTest {

    @ParameterizedTest
    @CsvSource({
            "useVirtualThreads, true, threads",
            "useAsyncIO, true, useAsyncIO",
            "pollerThreadCount, 2, loops",
            "selectorTimeout, 1000, selectorTimeout",
            "writeStrategy, fast, 'hybrid (default), direct, spin'",
            "threadModel, bio, 'hybrid (default), reactor, single, sync'",
            "acceptMode, poller, 'acceptor (default'",
            "writeBehindLimit, 100, 8192 to 67108864",
            "threads, 0, positive",
            "blockedHandOffMillis, 0, 1 to 1000",
            "loops, 0, 1 or more" })
    void inapplicableAttributeStopsStartUp(String attribute, String value, String advice) throws Exception {
        // As in server.xml: the Connector passes the attribute to the protocol, whose init fails...
        HybridHttp11Protocol protocol = new HybridHttp11Protocol();
        assertTrue(IntrospectionUtils.setProperty(protocol, attribute, value));
        Exception e = assertThrows(Exception.class, protocol::init);
        // ...and Tomcat leaves that Connector failed, serving nothing.
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), attribute, value)) {
            assertEquals(LifecycleState.FAILED, server.connector.getState());
        }
        String messages = messages(e);
        assertTrue(messages.contains(attribute), "message does not name " + attribute + ": " + messages);
        assertTrue(messages.contains(advice), "message does not say " + advice + ": " + messages);
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append(" | ");
        }
        return sb.toString();
    }
}
