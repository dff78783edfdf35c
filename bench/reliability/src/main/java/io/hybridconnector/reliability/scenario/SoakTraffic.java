package io.hybridconnector.reliability.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import javax.net.ssl.SSLContext;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.client.JdkClientLoad;
import io.hybridconnector.reliability.client.NormalClients;

/**
 * The soak's mix, the same on both sides, and what each kind of it counted. Plain HTTP/1.1 kinds run on bench/harness's
 * load generator ({@link NormalClients}): keep-alive 0.1 KB and 100 KB, churn (a connection per request), blocking and
 * computing requests. TLS and HTTP/2 kinds run on the JDK's HttpClient ({@link JdkClientLoad}): HTTPS keep-alive 0.1
 * KB and 100 KB on the side's TLS twin connector, and h2c connections with several streams in flight on its plain
 * port. Started and read on the scenario's thread; each kind's clients on threads of their own.
 */
final class SoakTraffic {

    /** Load before the plain kinds' measured window; the JDK kinds count it too (they have no separate warm-up). */
    static final Duration WARMUP = Duration.ofSeconds(1);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    /** One kind of the mix, named as the report's rows name it. */
    sealed interface Kind permits Plain, Jdk {

        String label();

        Running start(ServerUnderTest server, Side side, SSLContext tls, Duration length);
    }

    /**
     * Plain HTTP/1.1 on the load generator.
     *
     * @param expectedBodyBytes -1 where the servlet's body length is not fixed
     */
    record Plain(String label, String path, int connections, int thinkMillis, boolean close, long expectedBodyBytes)
            implements Kind {

        @Override
        public Running start(ServerUnderTest server, Side side, SSLContext tls, Duration length) {
            NormalClients c = NormalClients.start(new CellSpec(server.address(side), path, connections, WARMUP, length,
                    REQUEST_TIMEOUT, expectedBodyBytes).withThinkTime(Duration.ofMillis(thinkMillis))
                    .withCloseEach(close));
            return () -> {
                CellResult r = c.result();
                return new Tally(r.requests(), r.errors(), Map.of());
            };
        }
    }

    /**
     * HTTPS or h2c on the JDK's HttpClient: HTTPS on the side's TLS twin, h2c on its plain port. Each connection opens
     * with {@link #OPENING} (see {@link JdkClientLoad.Spec#opening} for why not with the kind's own request).
     */
    record Jdk(String label, JdkClientLoad.Protocol protocol, String path, int connections, int streams,
            int thinkMillis, long expectedBodyBytes) implements Kind {

        @Override
        public Running start(ServerUnderTest server, Side side, SSLContext tls, Duration length) {
            JdkClientLoad load = JdkClientLoad.start(spec(server, side, tls, WARMUP.plus(length)));
            return () -> {
                JdkClientLoad.Result r = load.result();
                return new Tally(r.requests(), r.errors(), r.over());
            };
        }

        JdkClientLoad.Spec spec(ServerUnderTest server, Side side, SSLContext tls, Duration length) {
            boolean https = protocol == JdkClientLoad.Protocol.HTTPS;
            return new JdkClientLoad.Spec(protocol, https ? new InetSocketAddress("127.0.0.1",
                    server.tlsPort(side)) : server.address(side), OPENING,
                    new JdkClientLoad.Request(path, expectedBodyBytes), connections, streams,
                    Duration.ofMillis(thinkMillis), length, https ? tls : null);
        }
    }

    /** A started kind; {@link #tally} waits for it to end. */
    interface Running {
        Tally tally() throws InterruptedException, ExecutionException;
    }

    /**
     * What one kind counted on one side.
     *
     * @param errors by kind (see {@link CellResult#errors} and {@link JdkClientLoad.Result#errors})
     * @param over   for the JDK kinds, passed responses by the protocol they came over; empty for the plain kinds
     */
    record Tally(long requests, Map<String, Long> errors, Map<String, Long> over) {

        long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }

        String errorsText() {
            return errors.isEmpty() ? "0" : errorCount() + " " + errors;
        }
    }

    private static final long SMALL = CellSpec.sizeBytes("0.1");
    private static final long LARGE = CellSpec.sizeBytes("100");
    /** Each JDK connection's first request, alone: the TLS handshake or the h2c upgrade. */
    private static final JdkClientLoad.Request OPENING = new JdkClientLoad.Request(CellSpec.sizePath("0.1"), SMALL);

    /** The mix per connector. Think times are means of exponential pauses. */
    static final List<Kind> MIX = List.of(
            new Plain("keep-alive 0.1 KB, 8 connections, think 5 ms", CellSpec.sizePath("0.1"), 8, 5, false, SMALL),
            new Plain("keep-alive 100 KB, 2 connections, think 20 ms", CellSpec.sizePath("100"), 2, 20, false, LARGE),
            new Plain("churn 0.1 KB (Connection: close), 2 connections, think 10 ms", CellSpec.sizePath("0.1"), 2, 10,
                    true, SMALL),
            new Plain("blocking 50 ms, 2 connections, think 50 ms", "/samples/block?ms=50", 2, 50, false, -1),
            new Plain("computing 5 ms, 1 connection, think 50 ms", "/samples/compute?ms=5", 1, 50, false, -1),
            new Jdk("HTTPS keep-alive 0.1 KB, 2 connections, think 5 ms", JdkClientLoad.Protocol.HTTPS,
                    CellSpec.sizePath("0.1"), 2, 1, 5, SMALL),
            new Jdk("HTTPS keep-alive 100 KB, 1 connection, think 20 ms", JdkClientLoad.Protocol.HTTPS,
                    CellSpec.sizePath("100"), 1, 1, 20, LARGE),
            new Jdk("h2c 0.1 KB, 2 connections x 4 streams, think 5 ms", JdkClientLoad.Protocol.H2C,
                    CellSpec.sizePath("0.1"), 2, 4, 5, SMALL),
            new Jdk("h2c 100 KB, 1 connection x 2 streams, think 20 ms", JdkClientLoad.Protocol.H2C,
                    CellSpec.sizePath("100"), 1, 2, 20, LARGE));

    private final Map<Kind, Running> running;

    private SoakTraffic(Map<Kind, Running> running) {
        this.running = running;
    }

    /** Starts every kind of {@link #MIX} against the side's connectors: {@link #WARMUP}, then {@code length}. */
    static SoakTraffic start(ServerUnderTest server, Side side, SSLContext tls, Duration length) {
        Map<Kind, Running> r = new LinkedHashMap<>();
        for (Kind k : MIX) {
            r.put(k, k.start(server, side, tls, length));
        }
        return new SoakTraffic(r);
    }

    /**
     * One request of each JDK kind alone, before the soak: a TLS twin that did not start, or an h2c upgrade that is
     * refused (the JDK client would quietly stay on HTTP/1.1), stops the scenario at once instead of after minutes.
     */
    static void check(ServerUnderTest server, Side side, SSLContext tls) throws IOException, InterruptedException {
        for (Kind k : MIX) {
            if (k instanceof Jdk j) {
                JdkClientLoad.Spec one = j.spec(server, side, tls, Duration.ZERO);
                JdkClientLoad.Result r = JdkClientLoad.start(new JdkClientLoad.Spec(one.protocol(), one.target(),
                        one.opening(), one.request(), 1, 1, Duration.ZERO, Duration.ZERO, one.tls())).result();
                if (r.errorCount() != 0 || r.requests() < 1) {
                    throw new IOException(side.label() + ", " + j.label() + ": the check request failed: "
                            + r.errorsText());
                }
            }
        }
    }

    /** Waits for every kind to end; tallies in {@link #MIX} order. */
    Map<Kind, Tally> tallies() throws InterruptedException, ExecutionException {
        Map<Kind, Tally> t = new LinkedHashMap<>();
        for (Map.Entry<Kind, Running> e : running.entrySet()) {
            t.put(e.getKey(), e.getValue().tally());
        }
        return t;
    }

    /** The mix in words, for the scenario's note. */
    static String describe() {
        List<String> parts = new ArrayList<>();
        for (Kind k : MIX) {
            parts.add(k.label() + (k instanceof Jdk j && j.protocol() == JdkClientLoad.Protocol.HTTPS
                    ? " (TLS twin port)" : ""));
        }
        return String.join("; ", parts);
    }
}
