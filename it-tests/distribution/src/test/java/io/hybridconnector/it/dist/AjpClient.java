package io.hybridconnector.it.dist;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * AJP/1.3 as a web server in front of Tomcat speaks it (mod_proxy_ajp, mod_jk): forwards requests over one
 * persistent connection, sends a request body in the chunks the container asks for, and reads the response
 * packets. Only what these tests need: no SSL attributes, no request attributes. One thread only.
 * <p>
 * Packet format: the Apache Tomcat Connectors "AJPv13" protocol reference. Web server to container: {@code 0x12 0x34},
 * length, payload; container to web server: {@code 'A' 'B'}, length, payload. Strings are a 16-bit length, the bytes
 * and a terminating 0.
 */
final class AjpClient implements AutoCloseable {

    /** A response as the container sent it; header names in lower case. */
    record Response(int status, Map<String, String> headers, byte[] body, boolean reuse) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static final int FORWARD_REQUEST = 2;
    private static final int SEND_BODY_CHUNK = 3;
    private static final int SEND_HEADERS = 4;
    private static final int END_RESPONSE = 5;
    private static final int GET_BODY_CHUNK = 6;
    private static final int ATTRIBUTE_QUERY_STRING = 0x05;
    private static final int ATTRIBUTE_SECRET = 0x0C;
    private static final int ATTRIBUTES_END = 0xFF;
    /** The largest body chunk in the default 8 KB packet: 8192 less the 4-byte header and the 2-byte length. */
    private static final int MAX_BODY_CHUNK = 8186;
    private static final Map<String, Integer> METHODS = Map.of("GET", 2, "HEAD", 3, "POST", 4, "PUT", 5);
    /** Request headers with a one-word code (0xA0xx) instead of their name. */
    private static final Map<String, Integer> REQUEST_HEADER_CODES = Map.of("content-type", 0xA007,
            "content-length", 0xA008, "cookie", 0xA009, "host", 0xA00B, "user-agent", 0xA00E);
    private static final String[] RESPONSE_HEADER_NAMES = { null, "content-type", "content-language",
        "content-length", "date", "last-modified", "location", "set-cookie", "set-cookie2", "servlet-engine",
        "status", "www-authenticate" };

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String secret;

    AjpClient(int port, String secret) throws IOException {
        this.socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(20_000);
        this.in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
        this.out = socket.getOutputStream();
        this.secret = secret;
    }

    Response get(String target) throws IOException {
        return send("GET", target, Map.of(), new byte[0]);
    }

    /**
     * Forwards one request and reads the response. {@code target} is a path with an optional query; a body, when not
     * empty, goes with a Content-Length, its first chunk right after the request as the protocol requires.
     */
    Response send(String method, String target, Map<String, String> headers, byte[] body) throws IOException {
        int q = target.indexOf('?');
        writePacket(forwardRequest(method, q < 0 ? target : target.substring(0, q),
                q < 0 ? null : target.substring(q + 1), headers, body.length));
        ByteBuffer rest = ByteBuffer.wrap(body);
        if (body.length > 0) {
            writeBodyChunk(rest, MAX_BODY_CHUNK);
        }
        return readResponse(rest);
    }

    private byte[] forwardRequest(String method, String path, String query, Map<String, String> headers,
            int contentLength) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("host", "localhost");
        headers.forEach((name, value) -> all.put(name.toLowerCase(Locale.ROOT), value));
        if (contentLength > 0) {
            all.put("content-length", String.valueOf(contentLength));
        }
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(FORWARD_REQUEST);
        p.write(METHODS.get(method));
        string(p, "HTTP/1.1");
        string(p, path);
        string(p, "127.0.0.1"); // remote_addr
        string(p, "localhost"); // remote_host
        string(p, "localhost"); // server_name
        int16(p, 80);
        p.write(0); // is_ssl
        int16(p, all.size());
        all.forEach((name, value) -> {
            Integer code = REQUEST_HEADER_CODES.get(name);
            if (code != null) {
                int16(p, code);
            } else {
                string(p, name);
            }
            string(p, value);
        });
        if (query != null) {
            p.write(ATTRIBUTE_QUERY_STRING);
            string(p, query);
        }
        if (secret != null) {
            p.write(ATTRIBUTE_SECRET);
            string(p, secret);
        }
        p.write(ATTRIBUTES_END);
        return p.toByteArray();
    }

    private Response readResponse(ByteBuffer body) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        Map<String, String> headers = new LinkedHashMap<>();
        int status = -1;
        while (true) {
            ByteBuffer packet = readPacket();
            int type = packet.get() & 0xFF;
            switch (type) {
                case SEND_HEADERS -> {
                    status = packet.getShort() & 0xFFFF;
                    readString(packet); // reason phrase
                    for (int n = packet.getShort() & 0xFFFF; n > 0; n--) {
                        headers.put(readHeaderName(packet), readString(packet));
                    }
                }
                case SEND_BODY_CHUNK -> {
                    int length = packet.getShort() & 0xFFFF;
                    received.write(packet.array(), packet.position(), length);
                }
                case GET_BODY_CHUNK -> writeBodyChunk(body, Math.min(packet.getShort() & 0xFFFF, MAX_BODY_CHUNK));
                case END_RESPONSE -> {
                    return new Response(status, headers, received.toByteArray(), packet.get() == 1);
                }
                default -> throw new IOException("unexpected AJP packet type " + type + " from the container");
            }
        }
    }

    /** Up to {@code max} bytes of the body as one data packet; an empty packet when the body has been sent. */
    private void writeBodyChunk(ByteBuffer body, int max) throws IOException {
        int n = Math.min(max, body.remaining());
        ByteArrayOutputStream p = new ByteArrayOutputStream(n + 2);
        if (n > 0) {
            int16(p, n);
            p.write(body.array(), body.position(), n);
            body.position(body.position() + n);
        }
        writePacket(p.toByteArray());
    }

    private void writePacket(byte[] payload) throws IOException {
        byte[] header = { 0x12, 0x34, (byte) (payload.length >> 8), (byte) payload.length };
        out.write(header);
        out.write(payload);
        out.flush();
    }

    private ByteBuffer readPacket() throws IOException {
        int a = in.read();
        if (a < 0) {
            throw new java.io.EOFException("the container closed the AJP connection");
        }
        if (a != 'A' || in.readUnsignedByte() != 'B') {
            throw new IOException("not an AJP packet from the container (first byte " + a + ")");
        }
        byte[] payload = new byte[in.readUnsignedShort()];
        in.readFully(payload);
        return ByteBuffer.wrap(payload);
    }

    private static String readHeaderName(ByteBuffer packet) {
        int code = packet.getShort(packet.position()) & 0xFFFF;
        if ((code & 0xFF00) == 0xA000) {
            packet.position(packet.position() + 2);
            return RESPONSE_HEADER_NAMES[code & 0xFF];
        }
        return readString(packet).toLowerCase(Locale.ROOT);
    }

    private static String readString(ByteBuffer packet) {
        int length = packet.getShort() & 0xFFFF;
        if (length == 0xFFFF) {
            return null;
        }
        String s = new String(packet.array(), packet.position(), length, StandardCharsets.ISO_8859_1);
        packet.position(packet.position() + length + 1); // and the terminating 0
        return s;
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
