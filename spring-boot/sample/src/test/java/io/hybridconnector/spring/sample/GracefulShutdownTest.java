package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code server.shutdown=graceful}: closing the application while a request runs stops accepting connections at once,
 * lets the request finish and answer, then stops. Stock NIO and ours in the same test body.
 */
class GracefulShutdownTest {

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void closingCompletesTheRequestInFlight(ConnectorKind kind) throws Exception {
        closeWithARequestInFlight(RunningApp.start(kind));
    }

    /**
     * The test above runs ours with the loops accepting (the default). Found by it: there was no Tomcat acceptor then,
     * and Tomcat's final {@code AbstractEndpoint.closeServerSocketGraceful} (which Boot's graceful shutdown calls)
     * threw a NullPointerException on {@code acceptor.stopMillis} (new connections were still accepted during the grace
     * period) and Boot waited its full 30 s shutdown phase. The endpoint now gives it an acceptor that never runs. Here
     * the other accept mode, Tomcat's acceptor thread.
     */
    @org.junit.jupiter.api.Test
    void closingCompletesTheRequestInFlightWhenTheAcceptorThreadAccepts() throws Exception {
        closeWithARequestInFlight(RunningApp.start(ConnectorKind.HYBRID,
                "--server.tomcat.hybrid.accept-mode=acceptor"));
    }

    private static void closeWithARequestInFlight(RunningApp app) throws Exception {
        CompletableFuture<HttpResponse<String>> inFlight = Http.CLIENT.sendAsync(
                HttpRequest.newBuilder(app.uri("/sleep?ms=1500")).build(), HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (app.endpoints().sleepingNow() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(1, app.endpoints().sleepingNow(), "the request is in flight");
        long start = System.nanoTime();
        CompletableFuture<Void> closed = CompletableFuture.runAsync(app::close);
        Thread.sleep(300);
        assertThrows(IOException.class, () -> new Socket("127.0.0.1", app.port).close(),
                "no new connection once the graceful shutdown began on " + app);
        HttpResponse<String> r = inFlight.get(30, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode());
        assertEquals("slept 1500", r.body());
        closed.get(30, TimeUnit.SECONDS);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis >= 1000, "close waited for the request: " + tookMillis + " ms");
        assertTrue(tookMillis < 10_000, "close did not wait for its 30 s limit: " + tookMillis + " ms");
    }
}
