package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

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

    /**
     * The operators' case: on virtual threads, a burst of new connections whose requests all block is not bounded by
     * the connector's platform threads. Each of {@link #BURST} connections asks {@code /sleep} once, all at once, on a
     * path no request has taken before, with {@code server.tomcat.threads.max} at {@link #PLATFORM_THREADS}: served
     * on that many platform threads the burst takes at least {@code BURST / PLATFORM_THREADS} sleeps (the issue
     * measured 6.0-6.8 s for 400 connections of 2 s on 200 threads, stock 2.5-3.2 s). Stock NIO in the same body.
     */
    @Test
    void aBurstOfBlockingRequestsOnNewConnectionsIsNotBoundedByPlatformThreads() throws Exception {
        long stock = burstMillis(ConnectorKind.STOCK);
        long ours = burstMillis(ConnectorKind.HYBRID);
        System.out.printf("%d new connections sleeping %d ms, %d platform threads: stock %d ms, ours %d ms%n", BURST,
                SLEEP_MILLIS, PLATFORM_THREADS, stock, ours);
        long platformBound = (long) BURST / PLATFORM_THREADS * SLEEP_MILLIS;
        assertTrue(ours < platformBound, "ours took " + ours + " ms, as if on " + PLATFORM_THREADS +
                " platform threads (" + platformBound + " ms); stock " + stock + " ms");
        assertTrue(ours <= Math.max(stock * 3 / 2, stock + 500), "ours " + ours + " ms, stock " + stock + " ms");
    }

    private static final int BURST = 300;
    private static final int PLATFORM_THREADS = 50;
    private static final int SLEEP_MILLIS = 1000;

    private static long burstMillis(ConnectorKind kind) throws Exception {
        try (RunningApp app = RunningApp.start(kind, "--spring.threads.virtual.enabled=true",
                "--server.tomcat.threads.max=" + PLATFORM_THREADS)) {
            assertEquals("hi", Http.get(app.uri("/hi")).body()); // started and warm, but /sleep never ran
            ExecutorService clients = Executors.newFixedThreadPool(BURST);
            try {
                List<Future<String>> answers = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < BURST; i++) {
                    answers.add(clients.submit(() -> sleepOnANewConnection(app.port)));
                }
                for (Future<String> answer : answers) {
                    String response = answer.get(60, TimeUnit.SECONDS);
                    assertTrue(response.startsWith("HTTP/1.1 200") && response.endsWith("slept " + SLEEP_MILLIS),
                            kind + ": " + response);
                }
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            } finally {
                clients.shutdownNow();
            }
        }
    }

    /** One request on a connection of its own, closed after it: the whole response as text. */
    private static String sleepOnANewConnection(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            String request = "GET /sleep?ms=" + SLEEP_MILLIS + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
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
