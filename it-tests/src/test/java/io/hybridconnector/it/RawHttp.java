package io.hybridconnector.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * A deliberately small HTTP/1.1 client over a raw socket, so that tests see exactly what goes over the wire:
 * keep-alive, pipelining, chunked bodies, interim responses and closes.
 */
final class RawHttp {

    private RawHttp() {
    }

    /** A response: status, the raw header block, the body, and the body's CRC-32. */
    record Response(int status, String head, byte[] body, long crc, long length) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    static void send(Socket s, String request) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    }

    static Response exchange(Socket s, String request) throws IOException {
        send(s, request);
        return read(s.getInputStream(), true);
    }

    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed in the headers after: " + head);
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /**
     * Reads one response (Content-Length, chunked, or until close for HTTP/1.0 without length).
     *
     * @param keep whether to keep the body bytes (large downloads only keep the CRC)
     */
    static Response read(InputStream in, boolean keep) throws IOException {
        String head = readHead(in);
        int status = Integer.parseInt(head.substring(9, 12));
        String lower = head.toLowerCase(Locale.ROOT);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        CRC32 crc = new CRC32();
        long length = 0;
        if (lower.contains("transfer-encoding: chunked")) {
            while (true) {
                String sizeLine = readLine(in);
                int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                if (size == 0) {
                    while (!readLine(in).isEmpty()) {
                        // trailers
                    }
                    break;
                }
                length += copy(in, size, keep ? body : null, crc);
                readLine(in);
            }
        } else {
            long contentLength = -1;
            for (String line : lower.split("\r\n")) {
                if (line.startsWith("content-length:")) {
                    contentLength = Long.parseLong(line.substring(15).trim());
                }
            }
            if (contentLength >= 0) {
                length = copy(in, contentLength, keep ? body : null, crc);
            } else if (status != 204 && status != 304 && status / 100 != 1) {
                length = copy(in, Long.MAX_VALUE, keep ? body : null, crc);
            }
        }
        return new Response(status, head, body.toByteArray(), crc.getValue(), length);
    }

    private static long copy(InputStream in, long n, ByteArrayOutputStream keep, CRC32 crc) throws IOException {
        byte[] buf = new byte[65536];
        long done = 0;
        while (done < n) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n - done));
            if (r < 0) {
                if (n == Long.MAX_VALUE) {
                    return done;
                }
                throw new IOException("body ended after " + done + " of " + n + " bytes");
            }
            crc.update(buf, 0, r);
            if (keep != null) {
                keep.write(buf, 0, r);
            }
            done += r;
        }
        return done;
    }

    static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("connection closed in a line: " + sb);
            }
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }

    /** @return true if the peer closed (EOF or reset) within the socket's timeout */
    static boolean closedByPeer(Socket s) throws IOException {
        try {
            return s.getInputStream().read() < 0;
        } catch (java.net.SocketException | javax.net.ssl.SSLException reset) {
            return true; // a reset; over TLS, a close without close_notify
        }
    }
}
