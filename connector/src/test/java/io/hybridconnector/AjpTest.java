package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * AJP/1.3 as {@code mod_proxy_ajp} speaks it, against stock {@code AjpNioProtocol} and ours with the same test body:
 * forwarded requests on one reused connection, large responses in chunks, request bodies that the web server forwards
 * in pieces with pauses between them, and the shared secret enforced.
 */
class AjpTest {

    private static final String SECRET = "s3cret";

    @ParameterizedTest
    @ValueSource(strings = { "org.apache.coyote.ajp.AjpNioProtocol", "io.hybridconnector.HybridAjpProtocol" })
    void forwardedRequestsOnOneConnection(String protocol) throws Exception {
        try (TestServer server = new TestServer(protocol, "secret", SECRET); Socket s = server.connect()) {
            for (String kb : new String[] { "0.1", "100", "10", "100" }) {
                AjpResponse r = exchange(s, "/size", "kb=" + kb, SECRET);
                assertEquals(200, r.status, protocol);
                assertEquals(Math.round(Double.parseDouble(kb) * 1024), r.body.length);
                for (byte b : r.body) {
                    assertTrue(Character.isLetterOrDigit(b));
                }
                assertTrue(r.reuse, "the connection was not kept for the next request");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "org.apache.coyote.ajp.AjpNioProtocol", "io.hybridconnector.HybridAjpProtocol" })
    void wrongSecretIsRefused(String protocol) throws Exception {
        try (TestServer server = new TestServer(protocol, "secret", SECRET); Socket s = server.connect()) {
            assertEquals(403, exchange(s, "/size", "kb=0.1", "wrong").status, protocol);
        }
    }

    /**
     * A POST whose body the web server forwards in 4,000-byte packets, 50 ms apart, each only when the container asks
     * for it ({@code GET_BODY_CHUNK}): echoed byte for byte, twice on one connection. The HTTP/1.1 read-ahead must not
     * touch AJP's body packets (issue 40).
     */
    @ParameterizedTest
    @ValueSource(strings = { "org.apache.coyote.ajp.AjpNioProtocol", "io.hybridconnector.HybridAjpProtocol" })
    void aBodyForwardedInPausedPiecesIsEchoed(String protocol) throws Exception {
        byte[] body = new byte[20_000];
        new Random(7).nextBytes(body);
        try (TestServer server = new TestServer(protocol, "secret", SECRET); Socket s = server.connect()) {
            for (int i = 0; i < 2; i++) {
                AjpResponse r = exchange(s, "/echo", "", SECRET, body, 4_000, 50);
                assertEquals(200, r.status, protocol);
                assertArrayEquals(body, r.body, protocol);
                assertTrue(r.reuse, "the connection was not kept for the next request");
            }
        }
    }

    // ------------------------------------------------------------------ a minimal AJP/1.3 client

    record AjpResponse(int status, byte[] body, boolean reuse) {
    }

    private static AjpResponse exchange(Socket s, String uri, String query, String secret) throws IOException {
        return exchange(s, uri, query, secret, null, 0, 0);
    }

    /**
     * One forwarded request; with a body, a POST whose first {@code piece} bytes follow the request at once, as
     * {@code mod_proxy_ajp} sends them, and every further piece after {@code pauseMillis}, when the container asks.
     */
    private static AjpResponse exchange(Socket s, String uri, String query, String secret, byte[] body, int piece,
            long pauseMillis) throws IOException {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(2); // JK_AJP13_FORWARD_REQUEST
        p.write(body == null ? 2 : 4); // GET or POST
        string(p, "HTTP/1.1");
        string(p, uri);
        string(p, "127.0.0.1");
        string(p, "localhost");
        string(p, "localhost");
        int16(p, 80);
        p.write(0); // not SSL
        int16(p, body == null ? 1 : 2);
        int16(p, 0xA00B); // Host
        string(p, "localhost");
        if (body != null) {
            int16(p, 0xA008); // Content-Length
            string(p, Integer.toString(body.length));
        }
        if (!query.isEmpty()) {
            p.write(0x05); // query_string
            string(p, query);
        }
        p.write(0x0C); // secret
        string(p, secret);
        p.write(0xFF);
        byte[] payload = p.toByteArray();
        OutputStream out = s.getOutputStream();
        out.write(new byte[] { 0x12, 0x34, (byte) (payload.length >> 8), (byte) payload.length });
        out.write(payload);
        int sent = body == null ? 0 : sendBodyPiece(out, body, 0, piece);
        out.flush();

        DataInputStream in = new DataInputStream(s.getInputStream());
        ByteArrayOutputStream response = new ByteArrayOutputStream();
        int status = -1;
        while (true) {
            if (in.readUnsignedByte() != 'A' || in.readUnsignedByte() != 'B') {
                throw new IOException("not an AJP packet from the container");
            }
            byte[] packet = new byte[in.readUnsignedShort()];
            in.readFully(packet);
            switch (packet[0]) {
                case 4 -> status = ((packet[1] & 0xFF) << 8) | (packet[2] & 0xFF); // SEND_HEADERS
                case 3 -> response.write(packet, 3, ((packet[1] & 0xFF) << 8) | (packet[2] & 0xFF)); // SEND_BODY_CHUNK
                case 5 -> {
                    return new AjpResponse(status, response.toByteArray(), packet[1] == 1); // END_RESPONSE
                }
                case 6 -> { // GET_BODY_CHUNK
                    sleep(pauseMillis);
                    sent += sendBodyPiece(out, body == null ? new byte[0] : body, sent, piece);
                    out.flush();
                }
                default -> throw new IOException("unexpected AJP packet type " + packet[0]);
            }
        }
    }

    /** One body packet of up to {@code piece} bytes from {@code offset}; an empty one once the body is all sent. */
    private static int sendBodyPiece(OutputStream out, byte[] body, int offset, int piece) throws IOException {
        int n = Math.min(piece, body.length - offset);
        byte[] data = Arrays.copyOfRange(body, offset, offset + n);
        if (n == 0) {
            out.write(new byte[] { 0x12, 0x34, 0, 0 });
        } else {
            out.write(new byte[] { 0x12, 0x34, (byte) ((n + 2) >> 8), (byte) (n + 2), (byte) (n >> 8), (byte) n });
            out.write(data);
        }
        return n;
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void string(ByteArrayOutputStream p, String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        int16(p, b.length);
        p.write(b, 0, b.length);
        p.write(0);
    }

    private static void int16(ByteArrayOutputStream p, int v) {
        p.write(v >> 8);
        p.write(v);
    }
}
