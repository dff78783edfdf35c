package io.hybridconnector.bench.harness.load;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One load cell: a closed loop of {@code connections} keep-alive connections, each sending the next GET as soon as
 * the previous response is complete (zero think time).
 *
 * @param target             server address
 * @param path               request target, e.g. {@code /samples/size?kb=0.1}
 * @param connections        concurrency: connections, each with one request in flight
 * @param warmup             load before the measured window (connections are opened at its start); not counted
 * @param duration           measured window
 * @param requestTimeout     a request without a complete response after this long is an error (its connection is
 *                           closed and replaced)
 * @param expectedBodyBytes  body length every response must have, or -1 for any
 * @param thinkTime          mean of an exponentially distributed pause between a response and the connection's next
 *                           request ({@link Duration#ZERO}: none, the papers' zero think time); seeds/004's clients
 * @param closeEach          every request asks {@code Connection: close}: a new connection per request (churn: the
 *                           accept, registration and close paths), instead of keep-alive
 */
public record CellSpec(InetSocketAddress target, String path, int connections, Duration warmup, Duration duration,
        Duration requestTimeout, long expectedBodyBytes, Duration thinkTime, boolean closeEach) {

    public CellSpec(InetSocketAddress target, String path, int connections, Duration warmup, Duration duration,
            Duration requestTimeout, long expectedBodyBytes) {
        this(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, Duration.ZERO);
    }

    public CellSpec(InetSocketAddress target, String path, int connections, Duration warmup, Duration duration,
            Duration requestTimeout, long expectedBodyBytes, Duration thinkTime) {
        this(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, thinkTime, false);
    }

    public CellSpec {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, got " + connections);
        }
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with /: " + path);
        }
    }

    public static CellSpec of(InetSocketAddress target, String path, int connections, Duration warmup,
            Duration duration) {
        return new CellSpec(target, path, connections, warmup, duration, Duration.ofSeconds(10), -1);
    }

    public CellSpec withExpectedBodyBytes(long bytes) {
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, bytes, thinkTime, closeEach);
    }

    public CellSpec withThinkTime(Duration mean) {
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, mean,
                closeEach);
    }

    public CellSpec withRequestTimeout(Duration timeout) {
        return new CellSpec(target, path, connections, warmup, duration, timeout, expectedBodyBytes, thinkTime,
                closeEach);
    }

    public CellSpec withCloseEach(boolean close) {
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, thinkTime,
                close);
    }

    /** The request bytes: HTTP/1.1 keeps the connection open by default, so no Connection header unless churning. */
    byte[] requestBytes() {
        String host = target.getHostString() + ":" + target.getPort();
        return ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: hybrid-bench\r\n"
                + (closeEach ? "Connection: close\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** The path of the samples' size servlet for a size in KB, and the body length it returns. */
    public static String sizePath(String kb) {
        return "/samples/size?kb=" + kb;
    }

    public static long sizeBytes(String kb) {
        return Math.round(Double.parseDouble(kb) * 1024);
    }
}
