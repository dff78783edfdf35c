package io.hybridconnector.rubbos.client.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One emulated browser's HTTP/1.1 connection: GET requests one after the other on a kept-alive socket, reopened
 * when the server closed it. An idle keep-alive connection per user during think time is what a server sees from
 * real browsers, and it is the load where connector designs differ, so the client does not share connections
 * between users (as a pooled HTTP client would).
 * <p>
 * Confined to its user's thread. Every blocking call has a deadline (connect and read timeouts).
 */
public final class BrowserConnection implements AutoCloseable {

    private static final int MAX_HEADER_BYTES = 64 * 1024;

    private final String host;
    private final int port;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private long connects;

    public BrowserConnection(String host, int port, int connectTimeoutMillis, int readTimeoutMillis) {
        this.host = host;
        this.port = port;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.readTimeoutMillis = readTimeoutMillis;
    }

    /** @return how many TCP connections this browser has opened */
    public long connects() {
        return connects;
    }

    /**
     * @param pathAndQuery already URL-encoded
     */
    public Response get(String pathAndQuery) throws IOException {
        boolean reused = socket != null;
        try {
            return exchange(pathAndQuery);
        } catch (IOException e) {
            close();
            if (!reused) {
                throw e;
            }
            // The server may have closed an idle kept-alive connection just as we sent: a GET is safe to repeat
            // once, on a fresh connection, as browsers do.
            return exchange(pathAndQuery);
        }
    }

    private Response exchange(String pathAndQuery) throws IOException {
        if (socket == null) {
            open();
        }
        out.write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nUser-Agent: rubbos-client\r\nAccept: */*\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        String statusLine = line();
        if (statusLine.isEmpty()) {
            throw new EOFException("connection closed before the status line");
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("bad status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        long length = -1;
        boolean chunked = false;
        boolean close = parts[0].equals("HTTP/1.0");
        int headerBytes = 0;
        for (String header = line(); !header.isEmpty(); header = line()) {
            headerBytes += header.length();
            if (headerBytes > MAX_HEADER_BYTES) {
                throw new IOException("response headers larger than " + MAX_HEADER_BYTES + " bytes");
            }
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).strip();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> close = value.equalsIgnoreCase("close");
                default -> { }
            }
        }
        byte[] body;
        if (chunked) {
            body = chunkedBody();
        } else if (length >= 0) {
            body = in.readNBytes((int) length);
            if (body.length != length) {
                throw new EOFException("body cut at " + body.length + " of " + length + " bytes");
            }
        } else {
            body = in.readAllBytes();
            close = true;
        }
        if (close) {
            close();
        }
        return new Response(status, body);
    }

    private byte[] chunkedBody() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
        while (true) {
            String sizeLine = line();
            int semicolon = sizeLine.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).strip(), 16);
            if (size == 0) {
                while (!line().isEmpty()) {
                    // trailers: ignored
                }
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new EOFException("chunk cut at " + chunk.length + " of " + size + " bytes");
            }
            body.write(chunk);
            line();
        }
    }

    /** @return one header line without its CRLF; empty at the end of the headers (or of the stream) */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int b = in.read(); b != -1; b = in.read()) {
            if (b == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) b);
        }
        if (line.length() == 0) {
            return "";
        }
        throw new EOFException("connection closed inside a line");
    }

    private void open() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            s.setSoTimeout(readTimeoutMillis);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
        out = s.getOutputStream();
        connects++;
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing: nothing left to do with it
            }
            socket = null;
            in = null;
            out = null;
        }
    }
}
