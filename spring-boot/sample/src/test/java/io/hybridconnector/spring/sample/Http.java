package io.hybridconnector.spring.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tests' HTTP/1.1 client (the JDK's, over real sockets) and the few readings of actuator's JSON they need. Any
 * thread.
 */
final class Http {

    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static final Pattern FIRST_VALUE = Pattern.compile("\"value\"\\s*:\\s*([^,}\\]]+)");

    static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<byte[]> post(URI uri, byte[] body) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The first measurement's value in {@code /actuator/metrics/NAME}: {@code NaN} stays {@code NaN}. */
    static double metric(RunningApp app, String name) throws IOException, InterruptedException {
        return metric(app, name, "");
    }

    /** As {@link #metric(RunningApp, String)}, for the meters tagged {@code name:TAG} only. */
    static double metric(RunningApp app, String name, String tag) throws IOException, InterruptedException {
        HttpResponse<String> r = get(app.uri("/actuator/metrics/" + name + (tag.isEmpty() ? "" : "?tag=name:" + tag)));
        if (r.statusCode() != 200) {
            throw new AssertionError("/actuator/metrics/" + name + " answered " + r.statusCode() + ": " + r.body());
        }
        Matcher m = FIRST_VALUE.matcher(r.body());
        if (!m.find()) {
            throw new AssertionError("no value in " + r.body());
        }
        String v = m.group(1).trim().replace("\"", "");
        return v.equals("NaN") ? Double.NaN : Double.parseDouble(v);
    }

    private Http() {
    }
}
