package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * {@code spring.threads.virtual.enabled=true}, which Boot applies on Java 21 and later by handing the protocol a
 * virtual-thread executor: the application starts and serves every endpoint kind, stock NIO and ours. On Java 17 Boot
 * ignores the property, so this class runs only on 21+ (the sample modules run it on a JDK 25 when one is installed:
 * the {@code jdk25} profile).
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsTest {

    @Test
    void servesEveryEndpointKindOnStock() throws Exception {
        servesEveryEndpointKind(ConnectorKind.STOCK);
    }

    @Test
    void servesEveryEndpointKindOnOurs() throws Exception {
        servesEveryEndpointKind(ConnectorKind.HYBRID);
    }

    private static void servesEveryEndpointKind(ConnectorKind kind) throws Exception {
        try (RunningApp app = RunningApp.start(kind, "--spring.threads.virtual.enabled=true")) {
            assertEquals(kind.protocolClass, app.protocol().getClass().getName());
            assertEquals("hi", Http.get(app.uri("/hi")).body());
            byte[] body = new byte[100 * 1024];
            new Random(1).nextBytes(body);
            assertArrayEquals(body, Http.post(app.uri("/echo"), body).body());
            assertEquals(100 * 1024, Http.get(app.uri("/big?kb=100")).body().length());
            assertTrue(Http.get(app.uri("/callable")).body().startsWith("callable on "));
            assertEquals(10 * 146 * 7, Http.get(app.uri("/stream")).body().length());
            HttpResponse<String> sse = Http.CLIENT.send(HttpRequest.newBuilder(app.uri("/sse"))
                    .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(sse.body().contains("data:e2"), sse.body());
            assertEquals("slept 20", Http.get(app.uri("/sleep?ms=20")).body());
            assertEquals("hi", H2PriorKnowledgeClient.get(app.port, "/hi").body());
            if (kind == ConnectorKind.STOCK) {
                assertTrue(Http.get(app.uri("/thread")).body().startsWith("virtual "), "stock runs requests on " +
                        "Boot's virtual-thread executor");
            }
        }
    }
}
