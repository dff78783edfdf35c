package io.hybridconnector.reliability.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Slowloris clients: each sends the start of a request and then one byte per {@link #tick}, either more of a header
 * that never ends or more of a body announced larger than it will ever be. Blocking sockets driven by the caller's
 * thread (a one-byte write never blocks).
 */
public final class Tricklers implements AutoCloseable {

    private final List<Socket> sockets = new ArrayList<>();
    private final boolean body;

    /** Opens {@code n} connections; {@code body}: trickle a POST body, else a header. */
    public Tricklers(InetSocketAddress at, int n, boolean body) throws IOException {
        this.body = body;
        String start = body
                ? "POST /samples/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
                : "GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\nX-Slow: ";
        for (int i = 0; i < n; i++) {
            Socket s = new Socket();
            s.connect(at, 5_000);
            s.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
            sockets.add(s);
        }
    }

    public boolean body() {
        return body;
    }

    /** One more byte on every connection still open; returns how many took it. */
    public int tick() {
        int ok = 0;
        for (Socket s : sockets) {
            if (s.isClosed()) {
                continue;
            }
            try {
                s.getOutputStream().write('a');
                ok++;
            } catch (IOException e) {
                close(s);
            }
        }
        return ok;
    }

    /** Connections the server has closed (FIN or reset); answers it sent before closing are skipped. */
    public int closedByServer() {
        int closed = 0;
        byte[] buf = new byte[4096];
        for (Socket s : sockets) {
            if (s.isClosed()) {
                closed++;
                continue;
            }
            try {
                s.setSoTimeout(1);
                InputStream in = s.getInputStream();
                while (true) {
                    if (in.read(buf) < 0) {
                        closed++;
                        break;
                    }
                }
            } catch (SocketTimeoutException e) {
                // still open
            } catch (IOException e) {
                closed++;
            }
        }
        return closed;
    }

    public int size() {
        return sockets.size();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        sockets.forEach(Tricklers::close);
    }
}
