package io.hybridconnector.bench.harness.load;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

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
 * @param upload             every request is a POST whose body is sent in paced pieces ({@link Upload}); null: a GET
 */
public record CellSpec(InetSocketAddress target, String path, int connections, Duration warmup, Duration duration,
        Duration requestTimeout, long expectedBodyBytes, Duration thinkTime, boolean closeEach, Upload upload) {

    /**
     * A request body sent slowly, as a client on a slow link or one streaming what it produces sends it: the body in
     * {@code pieces} pieces of (nearly) equal length, the first with the request head, each next one {@code pause}
     * after the previous one was written. The load generator waits in its selector, which counts in whole
     * milliseconds: a pause under 1 ms lasts about 1 ms.
     */
    public record Upload(int bodyBytes, int pieces, Duration pause) {

        public Upload {
            if (pieces < 1 || bodyBytes < pieces) {
                throw new IllegalArgumentException("an upload needs at least one piece and a byte per piece, got "
                        + bodyBytes + " bytes in " + pieces);
            }
        }

        /** Where piece {@code i} (from 0) ends, counted in bytes of the body. */
        int pieceEnd(int i) {
            return (int) ((long) bodyBytes * (i + 1) / pieces);
        }
    }

    public CellSpec(InetSocketAddress target, String path, int connections, Duration warmup, Duration duration,
            Duration requestTimeout, long expectedBodyBytes, Duration thinkTime, boolean closeEach) {
        this(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, thinkTime, closeEach,
                null);
    }

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
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, bytes, thinkTime, closeEach,
                upload);
    }

    public CellSpec withThinkTime(Duration mean) {
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, mean,
                closeEach, upload);
    }

    public CellSpec withRequestTimeout(Duration timeout) {
        return new CellSpec(target, path, connections, warmup, duration, timeout, expectedBodyBytes, thinkTime,
                closeEach, upload);
    }

    public CellSpec withCloseEach(boolean close) {
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, thinkTime,
                close, upload);
    }

    /** Every request a POST with this paced body; null: GETs. */
    public CellSpec withUpload(Upload body) {
        return new CellSpec(target, path, connections, warmup, duration, requestTimeout, expectedBodyBytes, thinkTime,
                closeEach, body);
    }

    /**
     * The request bytes: HTTP/1.1 keeps the connection open by default, so no Connection header unless churning. With
     * an {@link Upload}, a POST and its whole body (letters), which the load generator writes piece by piece.
     */
    byte[] requestBytes() {
        String host = target.getHostString() + ":" + target.getPort();
        String head = (upload == null ? "GET " : "POST ") + path + " HTTP/1.1\r\nHost: " + host
                + "\r\nUser-Agent: hybrid-bench\r\n" + (closeEach ? "Connection: close\r\n" : "")
                + (upload == null ? "" : "Content-Type: application/octet-stream\r\nContent-Length: "
                        + upload.bodyBytes() + "\r\n") + "\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        if (upload == null) {
            return headBytes;
        }
        byte[] request = Arrays.copyOf(headBytes, headBytes.length + upload.bodyBytes());
        for (int i = headBytes.length; i < request.length; i++) {
            request[i] = (byte) ('a' + i % 26);
        }
        return request;
    }

    /**
     * Where each piece the load generator writes at once ends in {@link #requestBytes}: the whole request for a GET;
     * the head with the first piece of the body, then each further piece, for an {@link Upload}.
     */
    int[] pieceEnds(int requestLength) {
        if (upload == null) {
            return new int[] { requestLength };
        }
        int headLength = requestLength - upload.bodyBytes();
        int[] ends = new int[upload.pieces()];
        for (int i = 0; i < ends.length; i++) {
            ends[i] = headLength + upload.pieceEnd(i);
        }
        return ends;
    }

    /** The path of the samples' size servlet for a size in KB, and the body length it returns. */
    public static String sizePath(String kb) {
        return "/samples/size?kb=" + kb;
    }

    public static long sizeBytes(String kb) {
        return Math.round(Double.parseDouble(kb) * 1024);
    }
}
