package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import io.hybridconnector.HybridHttp11Protocol;

import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.junit.jupiter.api.Test;

/**
 * {@code server.tomcat.hybrid.*} reaches the connector's attributes, standard {@code server.tomcat.*} properties keep
 * working on ours, the ones that cannot apply log one WARN each, and {@code server.tomcat.hybrid.enabled=false} leaves
 * stock NIO.
 */
class ConnectorSettingsTest {

    @Test
    void hybridPropertiesSetTheConnectorsAttributes() throws Exception {
        try (RunningApp app = RunningApp.start(ConnectorKind.HYBRID, "--server.tomcat.hybrid.threads=33",
                "--server.tomcat.hybrid.loops=1", "--server.tomcat.hybrid.blocked-hand-off-millis=7",
                "--server.tomcat.hybrid.time-slicing=auto", "--server.tomcat.hybrid.loop-warn-millis=-1",
                "--server.tomcat.hybrid.accept-mode=acceptor", "--server.tomcat.hybrid.write-strategy=direct",
                "--server.tomcat.hybrid.write-behind-limit=65536", "--server.tomcat.hybrid.use-async-io=false",
                // Stop at once: the graceful stop has a test of its own (GracefulShutdownTest).
                "--server.shutdown=immediate")) {
            HybridHttp11Protocol p = (HybridHttp11Protocol) app.protocol();
            assertEquals(33, p.getThreads());
            assertEquals(1, p.getLoops());
            assertEquals(7, p.getBlockedHandOffMillis());
            assertEquals("auto", p.getTimeSlicing());
            assertEquals(-1, p.getLoopWarnMillis());
            assertEquals("acceptor", p.getAcceptMode()); // not the default (loops): the property set it
            assertEquals("direct", p.getWriteStrategy());
            assertEquals(65536, p.getWriteBehindLimit());
            assertEquals(false, p.getUseAsyncIO());
            assertEquals("hi", Http.get(app.uri("/hi")).body());
        }
    }

    @Test
    void standardTomcatPropertiesApplyOnOursAsOnStock() throws Exception {
        String[] standard = {"--server.tomcat.threads.max=50", "--server.tomcat.max-connections=500",
                "--server.tomcat.accept-count=77", "--server.tomcat.connection-timeout=7s",
                "--server.tomcat.keep-alive-timeout=9s", "--server.tomcat.max-keep-alive-requests=3",
                "--server.tomcat.max-http-response-header-size=12KB", "--server.max-http-request-header-size=16KB",
                "--server.tomcat.max-swallow-size=1MB", "--server.tomcat.processor-cache=99"};
        for (ConnectorKind kind : ConnectorKind.values()) {
            try (RunningApp app = RunningApp.start(kind, standard)) {
                AbstractHttp11Protocol<?> p = (AbstractHttp11Protocol<?>) app.protocol();
                assertEquals(50, p.getMaxThreads(), kind + " threads.max");
                assertEquals(500, p.getMaxConnections(), kind + " max-connections");
                assertEquals(77, p.getAcceptCount(), kind + " accept-count");
                assertEquals(7000, p.getConnectionTimeout(), kind + " connection-timeout");
                assertEquals(9000, p.getKeepAliveTimeout(), kind + " keep-alive-timeout");
                assertEquals(3, p.getMaxKeepAliveRequests(), kind + " max-keep-alive-requests");
                assertEquals(12 * 1024, p.getMaxHttpResponseHeaderSize(), kind + " max-http-response-header-size");
                assertEquals(16 * 1024, p.getMaxHttpRequestHeaderSize(), kind + " max-http-request-header-size");
                assertEquals(1024 * 1024, p.getMaxSwallowSize(), kind + " max-swallow-size");
                assertEquals(99, p.getProcessorCache(), kind + " processor-cache");
                assertEquals("hi", Http.get(app.uri("/hi")).body());
            }
        }
    }

    @Test
    void unappliedTomcatPropertiesLogOneWarnEach() throws Exception {
        String log = capturingStandardOutput(() -> {
            try (RunningApp app = RunningApp.start(ConnectorKind.HYBRID, "--server.tomcat.threads.min-spare=20",
                    "--server.tomcat.threads.max-queue-capacity=1000")) {
                assertEquals("hi", Http.get(app.uri("/hi")).body());
            }
        });
        for (String property : new String[] {"server.tomcat.threads.min-spare=20",
                "server.tomcat.threads.max-queue-capacity=1000"}) {
            long warnings = log.lines().filter(l -> l.contains(" WARN ") && l.contains(property)).count();
            assertEquals(1, warnings, "one WARN naming " + property + " in:\n" + log);
        }
        assertTrue(log.contains("there is no task queue"), "says what the connector does instead");
    }

    @Test
    void stockNioStaysSilentAboutThoseProperties() throws Exception {
        String log = capturingStandardOutput(() -> {
            try (RunningApp app = RunningApp.start(ConnectorKind.STOCK, "--server.tomcat.threads.min-spare=20")) {
                assertEquals("hi", Http.get(app.uri("/hi")).body());
            }
        });
        assertTrue(log.lines().noneMatch(l -> l.contains("has no effect on io.hybridconnector")), log);
    }

    @Test
    void enabledFalseLeavesStockNio() throws Exception {
        try (RunningApp app = RunningApp.start(ConnectorKind.STOCK)) {
            assertEquals("org.apache.coyote.http11.Http11NioProtocol", app.protocol().getClass().getName());
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    /** Boot's console appender writes through {@code System.out} as it is at each write: swap it for the body. */
    private static String capturingStandardOutput(Body body) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(original);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        original.print(text);
        return text;
    }
}
