package io.hybridconnector.spring.sample;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The smallest HTTP/2 client that speaks without an upgrade (h2c "prior knowledge", as gRPC and curl
 * {@code --http2-prior-knowledge} do), which the JDK's HttpClient does not offer: the preface, one GET on stream 1
 * with literal header fields (no Huffman, no dynamic table), and the frames back until the stream ends. Enough to
 * see the status and the body byte for byte. One thread, one connection per call.
 */
final class H2PriorKnowledgeClient {

    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int SETTINGS = 4;
    private static final int GOAWAY = 7;
    private static final int WINDOW_UPDATE = 8;
    private static final int END_STREAM = 0x1;
    private static final int END_HEADERS = 0x4;

    /** Status and body of one response. */
    record Response(int status, String body) {
    }

    static Response get(int port, String path) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            // Windows of 16 MB for the stream (SETTINGS_INITIAL_WINDOW_SIZE) and the connection (WINDOW_UPDATE), so
            // that a response up to that size arrives without this client sending window updates as it reads.
            frame(out, SETTINGS, 0, 0, new byte[] {0, 0x4, 0x01, 0, 0, 0});
            frame(out, WINDOW_UPDATE, 0, 0, new byte[] {0, (byte) 0xff, 0, 0});
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.write(0x82); // :method GET (static table 2)
            block.write(0x86); // :scheme http (static table 6)
            literal(block, 4, path); // :path, name from static table 4
            literal(block, 1, "127.0.0.1:" + port); // :authority, static table 1
            frame(out, HEADERS, END_STREAM | END_HEADERS, 1, block.toByteArray());
            out.flush();
            return read(new DataInputStream(socket.getInputStream()), out);
        }
    }

    private static Response read(DataInputStream in, OutputStream out) throws IOException {
        int status = -1;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7fffffff;
            byte[] payload = in.readNBytes(length);
            if (type == SETTINGS && (flags & 0x1) == 0) {
                frame(out, SETTINGS, 0x1, 0, new byte[0]); // ACK
            } else if (type == GOAWAY) {
                throw new IOException("GOAWAY from the server, error code " + ((payload[4] & 0xff) << 24 |
                        (payload[5] & 0xff) << 16 | (payload[6] & 0xff) << 8 | (payload[7] & 0xff)));
            } else if (type == HEADERS && stream == 1 && status < 0) {
                status = status(payload);
            } else if (type == DATA && stream == 1) {
                body.write(payload);
            }
            if (stream == 1 && (type == DATA || type == HEADERS) && (flags & END_STREAM) != 0) {
                return new Response(status, body.toString(StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * The {@code :status} field, which a server sends first: either the static table's entry 8 ({@code 200}, one
     * byte {@code 0x88}), or a literal with the name {@code :status} (index 8) and a three-digit value, plain or
     * Huffman-coded (a digit is 5 or 6 bits there; only {@code 200} is decoded, the tests expect nothing else).
     */
    private static int status(byte[] block) {
        int at = 0;
        while ((block[at] & 0xe0) == 0x20) { // a dynamic table size update (001xxxxx, then 1xxxxxxx bytes): skip it
            boolean more = (block[at] & 0x1f) == 0x1f;
            at++;
            while (more) {
                more = (block[at++] & 0x80) != 0;
            }
        }
        int first = block[at] & 0xff;
        if (first == 0x88) {
            return 200;
        }
        boolean literalStatus = first == 0x48 || first == 0x08 || first == 0x18;
        if (!literalStatus) {
            throw new IllegalStateException("unexpected first header field: 0x" + Integer.toHexString(first));
        }
        int length = block[at + 1] & 0x7f;
        if ((block[at + 1] & 0x80) == 0) {
            return Integer.parseInt(new String(block, at + 2, length, StandardCharsets.US_ASCII));
        }
        // Huffman "200": 00010 00000 00000, padded with 1s: 0x10 0x01.
        return length == 2 && block[at + 2] == 0x10 && block[at + 3] == 0x01 ? 200 : -2;
    }

    /** A literal header field without indexing, its name from the static table, value short and not Huffman-coded. */
    private static void literal(ByteArrayOutputStream block, int nameIndex, String value) {
        byte[] v = value.getBytes(StandardCharsets.US_ASCII);
        if (v.length > 126) {
            throw new IllegalArgumentException("value too long for this client: " + value);
        }
        block.write(nameIndex);
        block.write(v.length);
        block.write(v, 0, v.length);
    }

    private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
                (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
                (byte) stream});
        out.write(payload);
    }

    private H2PriorKnowledgeClient() {
    }
}
