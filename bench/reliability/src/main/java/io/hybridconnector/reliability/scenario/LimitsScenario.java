package io.hybridconnector.reliability.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.client.NormalClients;
import io.hybridconnector.reliability.client.RawConnection;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 5: large uploads checked by CRC-32 beside normal clients, and Tomcat's request limits ({@code
 * maxPostSize}, {@code maxSwallowSize}, {@code maxHttpHeaderSize}, {@code maxHeaderCount}, {@code maxTrailerSize})
 * just under and just over: ours must answer each exactly as stock does (status, and whether the connection closes).
 * Main thread (the normal clients on their own).
 */
public final class LimitsScenario implements Scenario {

    private static final String NAME = "5-uploads-limits";
    private static final String LIMITS = "maxPostSize=\"1024\" maxSwallowSize=\"65536\" maxHttpHeaderSize=\"4096\""
            + " maxHeaderCount=\"20\" maxTrailerSize=\"256\"";

    /** Separates what a client sees of the response from whether writing its body failed (see {@link #report}). */
    private static final String WRITE_NOTE = "|";

    private record Upload(String result, long millis, CellResult normal) {
    }

    @Override
    public String name() {
        return "limits";
    }

    @Override
    public String title() {
        return "checksummed uploads beside normal clients; request limits honoured exactly as stock";
    }

    @Override
    public void run(Lab lab) throws Exception {
        Map<Side, Map<String, String>> cases = new EnumMap<>(Side.class);
        Map<Side, Upload> uploads = new EnumMap<>(Side.class);
        try (ServerUnderTest server = ServerUnderTest.start(lab, "limits", LIMITS, LIMITS)) {
            for (Side side : Side.values()) {
                uploads.put(side, upload(lab, server.address(side)));
                cases.put(side, limits(server.address(side)));
                lab.log("  %s: upload %s in %d ms; normal clients %s; limits %s", side.label(),
                        uploads.get(side).result, uploads.get(side).millis,
                        NormalClients.describe(uploads.get(side).normal), cases.get(side));
            }
        }
        report(lab, uploads, cases);
    }

    /** One upload of the profile's size with a known CRC-32, beside normal clients. */
    private static Upload upload(Lab lab, InetSocketAddress at) throws Exception {
        long bytes = lab.profile().uploadMegabytes() * 1024L * 1024;
        byte[] block = new byte[1 << 20];
        new Random(16).nextBytes(block);
        CRC32 crc = new CRC32();
        for (long i = 0; i < bytes / block.length; i++) {
            crc.update(block);
        }
        String expected = String.format("bytes=%d crc32=%08x", bytes, crc.getValue());
        NormalClients normal = NormalClients.start(at, Duration.ofSeconds(3));
        Thread.sleep(1_000);
        long t0 = System.nanoTime();
        String result;
        try (RawConnection c = RawConnection.open(at)) {
            c.write("POST /samples/upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: " + bytes + "\r\n\r\n");
            for (long i = 0; i < bytes / block.length; i++) {
                c.write(block);
            }
            RawConnection.Response r = c.read(60_000);
            result = r.status() + (r.body().trim().equals(expected) ? " checksum ok" : " checksum WRONG: "
                    + r.body().trim());
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        return new Upload(result, millis, normal.result());
    }

    /** Each case: what a client sees. */
    private static Map<String, String> limits(InetSocketAddress at) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        String form = "application/x-www-form-urlencoded";
        // /samples/echo calls getParameter, which parses a form body (up to maxPostSize)
        m.put("maxPostSize: form body of 1000 bytes to /samples/echo (limit 1024)", post(at, "/samples/echo", form,
                "kb=0.1&p=" + "a".repeat(1000 - 9)));
        m.put("maxPostSize: form body of 2000 bytes to /samples/echo", post(at, "/samples/echo", form,
                "kb=0.1&p=" + "a".repeat(1991)));
        // /samples/size has no doPost: a 405 that leaves the body unread, for Tomcat to swallow (up to maxSwallowSize)
        m.put("maxSwallowSize: 32 KB body left unread (POST to /samples/size: 405; limit 64 KB)",
                post(at, "/samples/size?kb=0.1", "application/octet-stream", "x".repeat(32 * 1024)));
        m.put("maxSwallowSize: 1 MB body left unread",
                post(at, "/samples/size?kb=0.1", "application/octet-stream", "x".repeat(1024 * 1024)));
        m.put("maxHttpHeaderSize: 3 KB header (limit 4096)", get(at, "X-Pad: " + "a".repeat(3 * 1024) + "\r\n"));
        m.put("maxHttpHeaderSize: 8 KB header", get(at, "X-Pad: " + "a".repeat(8 * 1024) + "\r\n"));
        m.put("maxHeaderCount: 19 headers (limit 20, Host included)", get(at, headers(18)));
        m.put("maxHeaderCount: 30 headers", get(at, headers(29)));
        m.put("maxTrailerSize: 100-byte trailer (limit 256)", chunkedWithTrailer(at, 100));
        m.put("maxTrailerSize: 1 KB trailer", chunkedWithTrailer(at, 1024));
        return m;
    }

    private static String headers(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("X-H").append(i).append(": v\r\n");
        }
        return sb.toString();
    }

    private static String get(InetSocketAddress at, String extraHeaders) throws IOException {
        return exchange(at, "GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n" + extraHeaders + "\r\n", new byte[0]);
    }

    private static String post(InetSocketAddress at, String path, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.ISO_8859_1);
        return exchange(at, "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + type + "\r\nContent-Length: "
                + b.length + "\r\n\r\n", b);
    }

    private static String chunkedWithTrailer(InetSocketAddress at, int trailerBytes) throws IOException {
        String body = "400\r\n" + "b".repeat(1024) + "\r\n0\r\nX-Trailer: " + "t".repeat(trailerBytes - 13)
                + "\r\n\r\n";
        return exchange(at, "POST /samples/upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                body.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Writes the request (a body the server refuses may fail to write: still reads), then reads what comes. */
    private static String exchange(InetSocketAddress at, String head, byte[] body) throws IOException {
        try (RawConnection c = RawConnection.open(at)) {
            String writeNote = "";
            try {
                c.write(head);
                for (int off = 0; off < body.length; off += 65536) {
                    c.write(java.util.Arrays.copyOfRange(body, off, Math.min(body.length, off + 65536)));
                }
            } catch (IOException e) {
                writeNote = " (body not all written)";
            }
            RawConnection.Response r = c.read(10_000);
            boolean closed = r.complete() ? c.closedByServer(500) : true;
            return r.status() + (r.complete() ? "" : " incomplete") + (closed ? ", closed" : ", kept open")
                    + WRITE_NOTE + writeNote;
        }
    }

    private static void report(Lab lab, Map<Side, Upload> uploads, Map<Side, Map<String, String>> cases) {
        Findings f = lab.findings();
        f.begin(NAME, new LimitsScenario().title());
        Upload s = uploads.get(Side.STOCK);
        Upload o = uploads.get(Side.OURS);
        int mb = lab.profile().uploadMegabytes();
        f.addSame(NAME, mb + " MB upload to /samples/upload: status and CRC-32", s.result, o.result);
        f.addLowerIsBetter(NAME, mb + " MB upload: ms", s.millis, o.millis, 200);
        f.addLowerIsBetter(NAME, "normal clients meanwhile: p99 ms", s.normal.latencyMillis(99),
                o.normal.latencyMillis(99), 2);
        f.addSame(NAME, "normal clients meanwhile: errors", s.normal.errorsText(), o.normal.errorsText());
        for (String k : cases.get(Side.STOCK).keySet()) {
            String[] sv = cases.get(Side.STOCK).get(k).split("\\" + WRITE_NOTE, -1);
            String[] ov = cases.get(Side.OURS).get(k).split("\\" + WRITE_NOTE, -1);
            f.addSame(NAME, k, sv[0], ov[0]);
            if (!sv[1].isEmpty() || !ov[1].isEmpty()) {
                f.add(NAME, k + ": the client's write of the body", sv[1].isEmpty() ? "all written" : sv[1].trim(),
                        ov[1].isEmpty() ? "all written" : ov[1].trim(), "");
            }
        }
        f.note(NAME, "Both connectors with `" + LIMITS.replace("\"", "'") + "`. Each limit case on a fresh"
                + " connection: status, whether the response was complete, and whether the server closed the"
                + " connection within 0.5 s after it.");
    }
}
