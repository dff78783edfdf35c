package io.hybridconnector.reliability.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;

/**
 * Traffic that bench/harness's {@code LoadGenerator} (plain HTTP/1.1 on raw sockets) does not speak, driven by the
 * JDK's {@link HttpClient}: HTTP/1.1 over TLS, and HTTP/2 over cleartext (h2c, by the upgrade of each connection's
 * first request).
 * One HttpClient per connection, so that "connections" means what it says: the client pools one connection per host,
 * and each of its streams is a thread that sends a GET, waits for the whole body, pauses for an exponentially
 * distributed think time and sends the next. Every response is checked (status 200, body length, and that it came
 * over the protocol asked for: TLS for HTTPS, HTTP/2 for h2c: the JDK client falls back to HTTP/1.1 without a word
 * when an upgrade is refused, so a version check is the only proof that h2c was exercised).
 *
 * <p>When the load ends, each HTTPS connection sends one more request with {@code Connection: close}, so that the
 * server closes it as the load generator's clients close theirs: Java 17's HttpClient cannot be closed, and would keep
 * idle connections for 20 minutes, until the server's keep-alive timeout (ours has none by default) ends them. h2c
 * connections cannot be closed that way (HTTP/2 has no Connection header); the server's HTTP/2 keep-alive timeout
 * (Http2Protocol's {@code keepAliveTimeout}, 20 s, the same on both connectors) closes them.
 *
 * <p>Threads: {@link #start} on the caller's; each stream on a daemon thread of its own; {@link #result} joins them on
 * the caller's. The tallies are concurrent counters.
 */
public final class JdkClientLoad {

    /** A request without response headers after this long is an error (the JDK client's request timeout). */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The JDK client's switch that lets a request carry a {@code Connection} header. Read once, when the client's
     * classes load, so it must be on the command line, not set by the suite.
     */
    private static final String ALLOW_RESTRICTED = "jdk.httpclient.allowRestrictedHeaders";
    /** How long {@link #result} waits for streams past the end of the load: the in-flight request's timeout and more. */
    private static final Duration DRAIN = Duration.ofSeconds(30);

    /** What goes over each connection. */
    public enum Protocol {
        /** HTTP/1.1 over TLS, keep-alive, one request at a time per connection. */
        HTTPS("https", HttpClient.Version.HTTP_1_1),
        /** HTTP/2 by h2c upgrade on the first request; then {@link Spec#streams} requests in flight at once. */
        H2C("http", HttpClient.Version.HTTP_2);

        private final String scheme;
        private final HttpClient.Version version;

        Protocol(String scheme, HttpClient.Version version) {
            this.scheme = scheme;
            this.version = version;
        }
    }

    /**
     * A GET and the body length its response must have.
     *
     * @param path request target, e.g. {@code /samples/size?kb=0.1}
     */
    public record Request(String path, long bodyBytes) {
    }

    /**
     * One traffic kind.
     *
     * @param opening   each connection's first request, sent alone: it carries the TLS handshake or the h2c upgrade.
     *                  Keep its response within 64 KB for h2c: Tomcat 10.1's answer to an upgrade request stalls
     *                  after 65,535 bytes (stock NIO and ours alike, with the JDK client and with curl), while every
     *                  later stream of the upgraded connection may be of any size
     * @param request   what the streams ask after the opening
     * @param streams   requests in flight at once per connection (1 for HTTPS: HTTP/1.1 has no more)
     * @param thinkTime mean pause between a response and the stream's next request
     * @param length    how long the streams keep sending; the request in flight at the end completes
     * @param tls       the client context for HTTPS (trusting the server's certificate); null for h2c
     */
    public record Spec(Protocol protocol, InetSocketAddress target, Request opening, Request request,
            int connections, int streams, Duration thinkTime, Duration length, SSLContext tls) {

        public Spec {
            if (protocol == Protocol.HTTPS && (tls == null || streams != 1)) {
                throw new IllegalArgumentException("HTTPS needs a TLS context and one stream per connection");
            }
            if (connections < 1 || streams < 1) {
                throw new IllegalArgumentException("connections and streams must be at least 1");
            }
        }
    }

    /**
     * What the load counted, from its first request to its last.
     *
     * @param requests complete responses that passed every check
     * @param errors   failed requests by kind: {@code status-NNN}, {@code body-length}, {@code not-HTTP_2},
     *                 {@code no-TLS}, or the exception's class and message
     * @param over     passed responses by the protocol they came over, e.g. {@code HTTP_2} or
     *                 {@code HTTP_1_1 over TLSv1.3}
     */
    public record Result(long requests, Map<String, Long> errors, Map<String, Long> over) {

        public long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }

        public String errorsText() {
            return errors.isEmpty() ? "0" : errors.toString();
        }
    }

    private final Spec spec;
    private final long endNanos;
    private final List<Thread> streams = new ArrayList<>();
    private final LongAdder requests = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> over = new ConcurrentHashMap<>();

    private JdkClientLoad(Spec spec) {
        this.spec = spec;
        this.endNanos = System.nanoTime() + spec.length().toNanos();
    }

    /**
     * Starts every connection: its first request alone (the TLS handshake, or the h2c upgrade that the other streams
     * then share), then its streams. Returns at once.
     */
    public static JdkClientLoad start(Spec spec) {
        JdkClientLoad load = new JdkClientLoad(spec);
        for (int c = 0; c < spec.connections(); c++) {
            HttpClient.Builder builder = HttpClient.newBuilder().version(spec.protocol().version)
                    .connectTimeout(REQUEST_TIMEOUT);
            if (spec.tls() != null) {
                builder.sslContext(spec.tls());
            }
            HttpClient client = builder.build();
            String name = "jdk-client-" + spec.protocol().name().toLowerCase() + "-" + spec.target().getPort() + "-"
                    + c;
            Thread first = new Thread(() -> load.connection(client, name), name + "-0");
            first.setDaemon(true);
            load.streams.add(first);
        }
        List.copyOf(load.streams).forEach(Thread::start);
        return load;
    }

    /** Waits for the streams to finish their last request (at most {@link #DRAIN} past the end) and counts. */
    public Result result() throws InterruptedException {
        long deadline = endNanos + DRAIN.toNanos();
        for (int i = 0; i < streamCount(); i++) {
            Thread t;
            synchronized (streams) {
                t = streams.get(i);
            }
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                errors.computeIfAbsent("stream still running " + DRAIN.toSeconds() + " s after the end",
                        k -> new LongAdder()).increment();
            }
        }
        return new Result(requests.sum(), snapshot(errors), snapshot(over));
    }

    private int streamCount() {
        synchronized (streams) {
            return streams.size();
        }
    }

    /** The connection's first stream: the opening request alone, then the other streams beside it. */
    private void connection(HttpClient client, String name) {
        exchange(client, spec.opening(), false);
        for (int s = 1; s < spec.streams(); s++) {
            Thread t = new Thread(() -> stream(client), name + "-" + s);
            t.setDaemon(true);
            synchronized (streams) {
                streams.add(t);
            }
            t.start();
        }
        stream(client);
    }

    private void stream(HttpClient client) {
        while (System.nanoTime() < endNanos) {
            think();
            exchange(client, spec.request(), false);
        }
        if (spec.protocol() == Protocol.HTTPS) {
            exchange(client, spec.request(), true);
        }
    }

    /** One GET, checked and counted; {@code close}: asking the server to close the connection after it. */
    private void exchange(HttpClient client, Request what, boolean close) {
        URI uri = URI.create(spec.protocol().scheme + "://" + spec.target().getHostString() + ":"
                + spec.target().getPort() + what.path());
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET();
        if (close) {
            try {
                builder.header("Connection", "close");
            } catch (IllegalArgumentException restricted) {
                throw new IllegalStateException("the JDK client refuses the Connection header: start the JVM with -D"
                        + ALLOW_RESTRICTED + "=connection (bench/reliability's pom does)", restricted);
            }
        }
        HttpRequest request = builder.build();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            long body;
            try (InputStream in = response.body()) {
                body = in.transferTo(OutputStream.nullOutputStream());
            }
            String failure = check(response, body, what.bodyBytes());
            if (failure != null) {
                count(errors, failure);
                return;
            }
            requests.increment();
            count(over, response.version().name() + response.sslSession().map(SSLSession::getProtocol)
                    .map(p -> " over " + p).orElse(""));
        } catch (IOException e) {
            count(errors, e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            count(errors, "interrupted");
        }
    }

    /** Why the response does not count, or null when it does. */
    private String check(HttpResponse<?> response, long body, long expectedBodyBytes) {
        if (response.statusCode() != 200) {
            return "status-" + response.statusCode();
        }
        if (body != expectedBodyBytes) {
            return "body-length";
        }
        if (response.version() != spec.protocol().version) {
            return "not-" + spec.protocol().version.name();
        }
        if (spec.protocol() == Protocol.HTTPS && response.sslSession().isEmpty()) {
            return "no-TLS";
        }
        return null;
    }

    private void think() {
        long meanNanos = spec.thinkTime().toNanos();
        if (meanNanos <= 0) {
            return;
        }
        double u = ThreadLocalRandom.current().nextDouble();
        long nanos = Math.min((long) (-meanNanos * Math.log(1 - u)), 20 * meanNanos);
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void count(Map<String, LongAdder> tally, String key) {
        tally.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> tally) {
        Map<String, Long> m = new TreeMap<>();
        tally.forEach((k, v) -> m.put(k, v.sum()));
        return Collections.unmodifiableMap(m);
    }
}
