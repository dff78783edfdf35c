package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every kind of response a Spring MVC application gives, over real sockets, with stock NIO and ours in the same test
 * body: both must answer alike. One application per connector kind, started once for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SampleEndpointsTest {

    private final Map<ConnectorKind, RunningApp> apps = new EnumMap<>(ConnectorKind.class);

    @BeforeAll
    void start() {
        for (ConnectorKind kind : ConnectorKind.values()) {
            apps.put(kind, RunningApp.start(kind));
        }
    }

    @AfterAll
    void stop() {
        apps.values().forEach(RunningApp::close);
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void runsTheConnectorAskedFor(ConnectorKind kind) {
        assertEquals(kind.protocolClass, apps.get(kind).protocol().getClass().getName());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void get(ConnectorKind kind) throws Exception {
        HttpResponse<String> r = Http.get(apps.get(kind).uri("/hi"));
        assertEquals(200, r.statusCode());
        assertEquals("hi", r.body());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void postEcho(ConnectorKind kind) throws Exception {
        for (int size : new int[] {1, 8191, 8193, 100 * 1024}) {
            byte[] body = new byte[size];
            new Random(size).nextBytes(body);
            HttpResponse<byte[]> r = Http.post(apps.get(kind).uri("/echo"), body);
            assertEquals(200, r.statusCode());
            assertArrayEquals(body, r.body(), "echo of " + size + " bytes");
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void body100Kb(ConnectorKind kind) throws Exception {
        HttpResponse<String> r = Http.get(apps.get(kind).uri("/big?kb=100"));
        assertEquals(200, r.statusCode());
        assertEquals("x".repeat(100 * 1024), r.body());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void callable(ConnectorKind kind) throws Exception {
        HttpResponse<String> r = Http.get(apps.get(kind).uri("/callable"));
        assertEquals(200, r.statusCode());
        assertTrue(r.body().startsWith("callable on "), r.body());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void streamingResponseBody(ConnectorKind kind) throws Exception {
        HttpResponse<String> r = Http.get(apps.get(kind).uri("/stream"));
        assertEquals(200, r.statusCode());
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            expected.append(("chunk" + i + "\n").repeat(1024 / 7));
        }
        assertEquals(expected.toString(), r.body());
        assertEquals("chunked", r.headers().firstValue("Transfer-Encoding").orElse(""));
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void serverSentEvents(ConnectorKind kind) throws Exception {
        HttpResponse<String> r = Http.CLIENT.send(HttpRequest.newBuilder(apps.get(kind).uri("/sse"))
                .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        assertEquals("event:tick\ndata:e0\n\nevent:tick\ndata:e1\n\nevent:tick\ndata:e2\n\n", r.body());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void h2cByUpgrade(ConnectorKind kind) throws Exception {
        // Small bodies: the JDK client's many small WINDOW_UPDATEs on a large one trip Tomcat's overhead protection
        // (RST_STREAM "Processing capacity exceeded") on stock NIO and ours alike; the prior-knowledge test sends 100 KB.
        HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        HttpResponse<String> r = h2.send(HttpRequest.newBuilder(apps.get(kind).uri("/hi")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals(HttpClient.Version.HTTP_2, r.version(), "upgraded to h2c");
        assertEquals("hi", r.body());
        HttpResponse<String> second = h2.send(HttpRequest.newBuilder(apps.get(kind).uri("/big?kb=4")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_2, second.version());
        assertEquals("x".repeat(4 * 1024), second.body());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void h2cByPriorKnowledge(ConnectorKind kind) throws Exception {
        H2PriorKnowledgeClient.Response r = H2PriorKnowledgeClient.get(apps.get(kind).port, "/hi");
        assertEquals(200, r.status());
        assertEquals("hi", r.body());
        H2PriorKnowledgeClient.Response big = H2PriorKnowledgeClient.get(apps.get(kind).port, "/big?kb=100");
        assertEquals("x".repeat(100 * 1024), big.body());
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void actuatorTomcatMetricsAreNumbers(ConnectorKind kind) throws Exception {
        RunningApp app = apps.get(kind);
        Http.get(app.uri("/hi"));
        String tag = app.tomcatMeterTag(); // keep-alive count: StandardTomcatMetricsTest
        for (String name : new String[] {"tomcat.threads.busy", "tomcat.threads.current", "tomcat.threads.config.max",
                "tomcat.connections.current", "tomcat.connections.config.max",
                "tomcat.global.request", "tomcat.global.sent", "tomcat.global.received"}) {
            double v = Http.metric(app, name, tag);
            assertTrue(v >= 0, name + " = " + v + " on " + app);
        }
        assertTrue(Http.metric(app, "http.server.requests") >= 1);
        assertTrue(Http.metric(app, "tomcat.sessions.active.current") >= 0);
        assertEquals(200, Http.metric(app, "tomcat.threads.config.max", tag), 0.0, "server.tomcat.threads.max default");
    }
}
