package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * Tomcat's HTTP/2 gives each stream to the endpoint's executor. Ours runs it on the loop's leader after the ready
 * connections (no thread woken per stream); a stream that blocks moves the loop like any request.
 */
class Http2StreamsTest {

    private static final String HYBRID = HybridHttp11Protocol.class.getName();

    private static HttpClient h2c() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static HttpRequest get(TestServer server, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port + path))
                .timeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void streamsRunOnTheLoopThatReadsTheConnection() throws Exception {
        try (TestServer server = TestServer.withHttp2(HYBRID)) {
            HttpClient client = h2c();
            // h2c by upgrade: the first request upgrades the connection, the next ones are streams on it
            assertEquals(200, client.send(get(server, "/thread"), HttpResponse.BodyHandlers.ofString()).statusCode());
            long before = server.hybrid().getDeferredTasks();
            for (int i = 0; i < 30; i++) {
                HttpResponse<String> r = client.send(get(server, "/thread"), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode());
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertTrue(r.body().contains("io.hybridconnector.loop.EventLoop.lead"),
                        "stream did not run on a loop's leader:\n" + r.body());
            }
            assertTrue(server.hybrid().getDeferredTasks() - before >= 30,
                    "deferred streams: " + (server.hybrid().getDeferredTasks() - before));
        }
    }

    @Test
    void aSleepingStreamDoesNotDelayTheOtherStreams() throws Exception {
        try (TestServer server = TestServer.withHttp2(HYBRID, "loops", "1")) {
            HttpClient client = h2c();
            assertEquals(200, client.send(get(server, "/size?kb=0.1"), HttpResponse.BodyHandlers.ofString())
                    .statusCode());
            CompletableFuture<HttpResponse<String>> sleeper =
                    client.sendAsync(get(server, "/block?ms=1500"), HttpResponse.BodyHandlers.ofString());
            Thread.sleep(100); // the sleeping stream is inside its servlet
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> others = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                others.add(client.sendAsync(get(server, "/size?kb=0.1"), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> f : others) {
                HttpResponse<String> r = f.get();
                assertEquals(200, r.statusCode());
                assertEquals(HttpClient.Version.HTTP_2, r.version());
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 1000, "20 streams took " + millis + " ms beside a sleeping stream");
            assertEquals("slept 1500", sleeper.get().body());
            assertTrue(server.hybrid().getHandOffs() >= 1, "the sleeping stream did not move the loop");
        }
    }
}
