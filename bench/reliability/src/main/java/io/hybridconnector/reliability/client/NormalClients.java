package io.hybridconnector.reliability.client;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.LoadGenerator;

/**
 * Well-behaved clients beside a hostile load: a few keep-alive connections asking 0.1 KB with a short think time,
 * on bench/harness's {@link LoadGenerator}, run on a thread of their own; {@link #result} on the caller's thread.
 */
public final class NormalClients {

    /** Connections of the normal clients. */
    public static final int CONNECTIONS = 4;
    /** Mean pause between a response and the next request: about 1,000 req/s per connection at most. */
    public static final Duration THINK = Duration.ofMillis(1);

    private final CompletableFuture<CellResult> result = new CompletableFuture<>();

    private NormalClients() {
    }

    /** Starts: 1 s of warm-up, then a measured window of {@code window}. */
    public static NormalClients start(InetSocketAddress at, Duration window) {
        return start(new CellSpec(at, "/samples/size?kb=0.1", CONNECTIONS, Duration.ofSeconds(1), window,
                Duration.ofSeconds(10), 102).withThinkTime(THINK));
    }

    /** Starts any cell on a thread of its own (the overload and the soak use it for their heavier clients). */
    public static NormalClients start(CellSpec spec) {
        NormalClients n = new NormalClients();
        Thread t = new Thread(() -> {
            try {
                n.result.complete(LoadGenerator.run(spec));
            } catch (Throwable e) {
                n.result.completeExceptionally(e);
            }
        }, "normal-clients");
        t.setDaemon(true);
        t.start();
        return n;
    }

    /** Waits for the window to end and the in-flight requests to drain. */
    public CellResult result() throws InterruptedException, ExecutionException {
        return result.get();
    }

    public static String describe(CellResult r) {
        return String.format("%.0f req/s, p50 %.2f ms, p99 %.2f ms, errors %s", r.requestsPerSecond(),
                r.latencyMillis(50), r.latencyMillis(99), r.errorsText());
    }
}
