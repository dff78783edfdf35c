package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.apache.catalina.LifecycleState;
import org.apache.tomcat.util.IntrospectionUtils;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An attribute whose promise start-up would break stops start-up with a message naming it and what to use instead;
 * one of stock NIO's that has no counterpart here starts the connector with a WARN naming it and what happens instead.
 */
class ConfigurationTest {

    @ParameterizedTest
    @CsvSource({
            "pollerThreadCount, 2, loops",
            "pollerThreadPriority, 7, normal priority",
            "selectorTimeout, 1000, timeout sweep",
            "acceptorThreadCount, 2, acceptMode",
            "computingRequestPriority, 4, no longer changes any thread" })
    void attributeWithoutCounterpartStartsWithWarning(String attribute, String value, String instead)
            throws Exception {
        List<String> warnings = new ArrayList<>();
        Logger logger = Logger.getLogger(HybridHttp11Protocol.class.getName());
        Handler handler = new Handler() {
            @Override
            public synchronized void publish(LogRecord r) {
                if (r.getLevel() == Level.WARNING) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), attribute, value)) {
            assertEquals(LifecycleState.STARTED, server.connector.getState());
            try (Socket s = server.connect()) {
                assertEquals(200, TestServer.get(s, "/size?kb=0.1").status());
            }
        } finally {
            logger.removeHandler(handler);
        }
        synchronized (handler) {
            assertEquals(1, warnings.size(), "warnings: " + warnings);
            String message = warnings.get(0);
            assertTrue(message.contains(attribute + "=\"" + value + "\"") && message.contains(instead), message);
        }
    }

    @ParameterizedTest
    @CsvSource({ "true", "false" })
    void useAsyncIOIsAccepted(boolean useAsyncIO) throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "useAsyncIO",
                Boolean.toString(useAsyncIO))) {
            assertEquals(LifecycleState.STARTED, server.connector.getState());
            assertEquals(useAsyncIO, server.hybrid().getUseAsyncIO());
        }
    }

    @org.junit.jupiter.api.Test
    void useAsyncIOIsTrueByDefaultAsOnStockNio() {
        assertTrue(new HybridHttp11Protocol().getUseAsyncIO());
    }

    @ParameterizedTest
    @CsvSource({
            "useInheritedChannel, true, port",
            "writeStrategy, fast, 'hybrid (default), direct, spin'",
            "threadModel, bio, 'hybrid (default), reactor, single, sync'",
            "acceptMode, poller, 'loops (default'",
            "timeSlicing, on, 'auto (default'",
            "writeBehindLimit, 100, 8192 to 67108864",
            "requestReadTimeout, 10, -1 (no limit) or 1000 to 3600000",
            "minRequestDataRate, 0, -1 (none) or 1 and more",
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
