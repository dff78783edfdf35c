package io.hybridconnector.bench.harness.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.hybridconnector.bench.harness.report.Stats;

/**
 * The fairness cell: light requests (50 keep-alive connections asking for 0.1 KB) beside heavy ones on other
 * connections, as an operator's application mixes them: requests that compute, that sleep, that download 10 MB.
 * Each scenario runs two load generators at once, on two client threads, against one connector; the table gives the
 * light requests' latency and both throughputs, stock NIO beside ours. The promise it checks: one slow request must
 * not make other connections wait longer than they would on stock NIO. Run by the main job, by bench/experiments (its
 * {@code fairness} phases, with more peers and a 2-core condition) and by bench/fairness-map (six heavy kinds over a
 * grid of durations and connection counts, slow uploads among them: {@link Scenario#upload}). Immutable; {@code run}
 * loads from the calling thread and starts one more for the heavy load.
 */
public final class Fairness {

    /**
     * One heavy load beside the light one ({@code connections == 0}: the light load alone); {@code upload}: its
     * requests are POSTs with a paced body (null: GETs).
     */
    public record Scenario(String name, String path, int connections, long expectedBytes, CellSpec.Upload upload) {

        public Scenario(String name, String path, int connections, long expectedBytes) {
            this(name, path, connections, expectedBytes, null);
        }
    }

    public static final int LIGHT_CONNECTIONS = 50;
    public static final String LIGHT_PATH = CellSpec.sizePath("0.1");
    public static final long LIGHT_BYTES = CellSpec.sizeBytes("0.1");

    public static final List<Scenario> ALL = List.of(
            new Scenario("none", null, 0, -1),
            new Scenario("4 computing 20 ms", "/samples/compute?ms=20", 4, -1),
            new Scenario("1 computing 200 ms", "/samples/compute?ms=200", 1, -1),
            new Scenario("2 downloading 10 MB", CellSpec.sizePath("10240"), 2, CellSpec.sizeBytes("10240")),
            new Scenario("4 sleeping 20 ms", "/samples/block?ms=20", 4, -1));

    /** What one scenario measured on one connector in one round; {@code heavy} is null for the light load alone. */
    public record Result(Scenario scenario, String connector, int round, CellResult light, CellResult heavy) {
    }

    private final Duration warmup;
    private final Duration duration;
    private final Duration timeout;

    public Fairness(Duration warmup, Duration duration, Duration timeout) {
        this.warmup = warmup;
        this.duration = duration;
        this.timeout = timeout;
    }

    /** Runs the light and the heavy load at once against {@code port}; the heavy one on a second thread. */
    public Result run(int port, Scenario s, String connector, int round) throws IOException, InterruptedException {
        return run(new InetSocketAddress("127.0.0.1", port), s, connector, round, Probe.NONE);
    }

    /**
     * Runs the light load on the calling thread and the heavy one on a second thread, at once, against
     * {@code target}. Both open their connections together and have the same warm-up and window, so the windows
     * overlap to within the time it takes to connect. {@code lightProbe} hooks the light load's window (server
     * counters over the window in which both loads run).
     */
    public Result run(InetSocketAddress target, Scenario s, String connector, int round, Probe lightProbe)
            throws IOException, InterruptedException {
        CellSpec light = new CellSpec(target, LIGHT_PATH, LIGHT_CONNECTIONS, warmup, duration, timeout, LIGHT_BYTES);
        CompletableFuture<CellResult> heavy = null;
        if (s.connections() > 0) {
            CellSpec spec = new CellSpec(target, s.path(), s.connections(), warmup, duration, timeout,
                    s.expectedBytes()).withUpload(s.upload());
            heavy = CompletableFuture.supplyAsync(() -> {
                try {
                    return LoadGenerator.run(spec);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, r -> {
                Thread t = new Thread(r, "heavy-load");
                t.setDaemon(true);
                t.start();
            });
        }
        CellResult lightResult = LoadGenerator.run(light, lightProbe);
        try {
            return new Result(s, connector, round, lightResult, heavy == null ? null : heavy.get());
        } catch (ExecutionException e) {
            throw new IOException("heavy load failed: " + e.getCause(), e.getCause());
        }
    }

    public static String brief(Result r) {
        CellResult l = r.light();
        return String.format("light %9s req/s p50 %6s p99 %6s max %6s ms, heavy %7s req/s, errors %s/%s, "
                        + "client CPU light %4s heavy %4s",
                Stats.format(l.requestsPerSecond()), Stats.format(l.latencyMillis(50)),
                Stats.format(l.latencyMillis(99)), Stats.format(l.latencyMillis(100)),
                r.heavy() == null ? "-" : Stats.format(r.heavy().requestsPerSecond()), l.errorsText(),
                r.heavy() == null ? "-" : r.heavy().errorsText(), Stats.format(l.clientCpuShare()),
                r.heavy() == null ? "-" : Stats.format(r.heavy().clientCpuShare()));
    }

    /** One row per scenario: medians over rounds with (min-max), stock NIO beside ours. */
    public static String table(List<Result> all, List<Scenario> scenarios, List<String> connectors, List<String> labels,
            String cores) {
        StringBuilder sb = new StringBuilder();
        sb.append("### Fairness: ").append(LIGHT_CONNECTIONS).append(" light connections (").append(LIGHT_PATH)
                .append(") beside heavy ones; server on ").append(cores).append("\n\n");
        sb.append("| heavy load beside the light one |");
        for (String label : labels) {
            sb.append(" light p50 / p99 / max ms, ").append(label).append(" |");
        }
        for (String label : labels) {
            sb.append(" light req/s, ").append(label).append(" |");
        }
        for (String label : labels) {
            sb.append(" heavy req/s, ").append(label).append(" |");
        }
        sb.append("\n|---|").append("---|".repeat(labels.size() * 3)).append("\n");
        for (Scenario s : scenarios) {
            sb.append("| ").append(s.name()).append(s.path() == null ? "" : " (`" + s.path() + "`)").append(" |");
            for (String c : connectors) {
                List<Result> rs = of(all, s, c);
                sb.append(' ').append(median(rs, r -> r.light().latencyMillis(50))).append(" / ")
                        .append(Stats.summary(values(rs, r -> r.light().latencyMillis(99)))).append(" / ")
                        .append(median(rs, r -> r.light().latencyMillis(100))).append(" |");
            }
            for (String c : connectors) {
                sb.append(' ').append(Stats.summary(values(of(all, s, c), r -> r.light().requestsPerSecond())))
                        .append(" |");
            }
            for (String c : connectors) {
                sb.append(' ').append(s.connections() == 0 ? "" : Stats.summary(values(of(all, s, c),
                        r -> r.heavy().requestsPerSecond()))).append(" |");
            }
            sb.append('\n');
        }
        sb.append("\nMedians over rounds; p99 and the throughputs with (min-max). Light latency: closed loop, first "
                + "request byte to last response byte. Both loads run at once from two client threads; rounds "
                + "interleave the connectors.\n");
        return sb.toString();
    }

    private static List<Result> of(List<Result> all, Scenario s, String connector) {
        List<Result> rs = new ArrayList<>();
        for (Result r : all) {
            if (r.scenario().equals(s) && r.connector().equals(connector)) {
                rs.add(r);
            }
        }
        return rs;
    }

    private static double[] values(List<Result> rs, ToDoubleFunction<Result> f) {
        return rs.stream().mapToDouble(f).toArray();
    }

    private static String median(List<Result> rs, ToDoubleFunction<Result> f) {
        double[] v = values(rs, f);
        return v.length == 0 ? "" : Stats.format(Stats.median(v));
    }

    /** Scenarios by name as listed in {@link #ALL}, comma-separated; {@code all}, or {@code off} for none. */
    public static List<Scenario> parse(String list) {
        if (list.equals("all")) {
            return ALL;
        }
        if (list.equals("off")) {
            return List.of();
        }
        List<Scenario> chosen = new ArrayList<>();
        for (String name : list.split(",")) {
            Scenario found = named(name.trim());
            if (found == null) {
                throw new IllegalArgumentException("--fairness: unknown scenario '" + name + "'; accepted: all, off, "
                        + "\"N computing M ms\", or names from " + ALL.stream().map(Scenario::name).toList());
            }
            chosen.add(found);
        }
        return chosen;
    }

    /** Any count of computing connections and milliseconds, beyond the ones {@link #ALL} names. */
    private static final Pattern COMPUTING = Pattern.compile("(\\d+) computing (\\d+) ms");

    /** The scenario of {@link #ALL} with this name, "N computing M ms" for any N and M, or null. */
    public static Scenario named(String name) {
        for (Scenario s : ALL) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        Matcher m = COMPUTING.matcher(name);
        return m.matches() ? new Scenario(name, "/samples/compute?ms=" + m.group(2), Integer.parseInt(m.group(1)), -1)
                : null;
    }
}
