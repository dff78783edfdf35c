package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * AJP/1.3 as {@code mod_proxy_ajp} speaks it, against stock {@code AjpNioProtocol} and ours with the same test body:
 * forwarded requests on one reused connection, large bodies in chunks, and the shared secret enforced.
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

    // ------------------------------------------------------------------ a minimal AJP/1.3 client

    record AjpResponse(int status, byte[] body, boolean reuse) {
    }

    private static AjpResponse exchange(Socket s, String uri, String query, String secret) throws IOException {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(2); // JK_AJP13_FORWARD_REQUEST
        p.write(2); // GET
        string(p, "HTTP/1.1");
        string(p, uri);
        string(p, "127.0.0.1");
        string(p, "localhost");
        string(p, "localhost");
        int16(p, 80);
        p.write(0); // not SSL
        int16(p, 1);
        int16(p, 0xA00B); // Host
        string(p, "localhost");
        p.write(0x05); // query_string
        string(p, query);
        p.write(0x0C); // secret
        string(p, secret);
        p.write(0xFF);
        byte[] payload = p.toByteArray();
        OutputStream out = s.getOutputStream();
        out.write(new byte[] { 0x12, 0x34, (byte) (payload.length >> 8), (byte) payload.length });
        out.write(payload);
        out.flush();

        DataInputStream in = new DataInputStream(s.getInputStream());
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int status = -1;
        while (true) {
            if (in.readUnsignedByte() != 'A' || in.readUnsignedByte() != 'B') {
                throw new IOException("not an AJP packet from the container");
            }
            byte[] packet = new byte[in.readUnsignedShort()];
            in.readFully(packet);
            switch (packet[0]) {
                case 4 -> status = ((packet[1] & 0xFF) << 8) | (packet[2] & 0xFF); // SEND_HEADERS
                case 3 -> body.write(packet, 3, ((packet[1] & 0xFF) << 8) | (packet[2] & 0xFF)); // SEND_BODY_CHUNK
                case 5 -> {
                    return new AjpResponse(status, body.toByteArray(), packet[1] == 1); // END_RESPONSE
                }
                default -> throw new IOException("unexpected AJP packet type " + packet[0]);
            }
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
