package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The client side of a trickling page ({@code /trickle}): sends one request with {@code Connection: close}, notes when
 * the first byte of the response arrives, reads to the end, de-chunks the body and checks every piece byte for byte.
 */
public final class TrickleClient {

    static final byte[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);

    /** When the response's first byte and its last arrived, in ms after the request was sent. */
    public record Timing(double firstByteMillis, double lastByteMillis) {
    }

    private TrickleClient() {
    }

    /**
     * @param trailing bytes the page may add after its last piece (a JSP's final newline)
     */
    public static Timing fetch(int port, String path, int kb, int n, String trailing) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(30000);
        return fetch(s, path, kb, n, trailing);
    }

    /** As {@link #fetch(int, String, int, int, String)} on a connected socket (plain or TLS), which it closes. */
    public static Timing fetch(Socket socket, String path, int kb, int n, String trailing) throws IOException {
        try (Socket s = socket) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1);
            long sent = System.nanoTime();
            out.write(request);
            out.flush();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            int r = in.read(buf);
            long first = System.nanoTime();
            while (r > 0) {
                all.write(buf, 0, r);
                r = in.read(buf);
            }
            long last = System.nanoTime();
            check(all.toByteArray(), kb * 1024, n, trailing);
            return new Timing((first - sent) / 1e6, (last - sent) / 1e6);
        }
    }

    private static void check(byte[] response, int pieceBytes, int n, String trailing) throws IOException {
        String text = new String(response, StandardCharsets.ISO_8859_1);
        int headEnd = text.indexOf("\r\n\r\n");
        assertTrue(text.startsWith("HTTP/1.1 200"),
                () -> "status line: " + text.substring(0, Math.min(80, text.length())));
        assertTrue(text.substring(0, headEnd).toLowerCase().contains("transfer-encoding: chunked"), "not chunked");
        byte[] body = dechunk(response, headEnd + 4);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            expected.write(("piece " + i + "\n").getBytes(StandardCharsets.US_ASCII));
            for (int j = 0; j < pieceBytes; j++) {
                expected.write(ALPHABET[i % ALPHABET.length]);
            }
        }
        expected.write(trailing.getBytes(StandardCharsets.US_ASCII));
        assertEquals(expected.size(), body.length, "body length");
        assertTrue(java.util.Arrays.equals(expected.toByteArray(), body), "body differs from what the page wrote");
    }

    private static byte[] dechunk(byte[] b, int pos) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int eol = indexOfCrlf(b, pos);
            int size = Integer.parseInt(new String(b, pos, eol - pos, StandardCharsets.ISO_8859_1).trim(), 16);
            pos = eol + 2;
            if (size == 0) {
                return body.toByteArray();
            }
            body.write(b, pos, size);
            pos += size + 2;
        }
    }

    private static int indexOfCrlf(byte[] b, int from) throws IOException {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        throw new IOException("truncated chunked body");
    }
}
