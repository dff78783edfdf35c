package io.hybridconnector.reliability.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.hybridconnector.bench.harness.load.HttpFramingException;
import io.hybridconnector.bench.harness.load.ResponseParser;

/**
 * One blocking client socket that a scenario drives step by step: write part of a request, read a response (framed
 * by bench/harness's {@link ResponseParser}), reset, half-close, or see whether the server closed. Used by one
 * thread at a time.
 */
public final class RawConnection implements AutoCloseable {

    /** A response as read: {@code status} 0 if none came; {@code text} holds the first 64 KB (head and body). */
    public record Response(int status, long bodyBytes, boolean complete, String text, String error) {

        public String body() {
            int at = text.indexOf("\r\n\r\n");
            return at < 0 ? "" : text.substring(at + 4);
        }
    }

    private static final int KEEP = 64 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final ResponseParser parser = new ResponseParser();
    /**
     * Allocated per read, not per connection: the idle scenario keeps 10,000 (full profile) connections open, and a
     * 64 KB buffer each would be 640 MB of the suite's heap for sockets that read one response.
     */
    private static final int READ_BUFFER = 64 * 1024;

    private RawConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    public static RawConnection open(InetSocketAddress address) throws IOException {
        return open(address, 0);
    }

    /**
     * With a receive buffer of {@code receiveBufferBytes} (0: the kernel's default, which grows to megabytes): a
     * client that stops reading a large body stalls the server's writes after that much, not after most of the body.
     */
    public static RawConnection open(InetSocketAddress address, int receiveBufferBytes) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        if (receiveBufferBytes > 0) {
            s.setReceiveBufferSize(receiveBufferBytes);
        }
        s.connect(address, 5_000);
        return new RawConnection(s);
    }

    public Socket socket() {
        return socket;
    }

    public RawConnection write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    public RawConnection write(String ascii) throws IOException {
        return write(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Reads one response; stops after {@code stopAfterBodyBytes} body bytes if that comes first (then incomplete). */
    public Response read(int timeoutMillis, long stopAfterBodyBytes) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        parser.reset();
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        byte[] buffer = new byte[READ_BUFFER];
        try {
            while (true) {
                int n = in.read(buffer);
                if (n < 0) {
                    return response(kept, false, "closed");
                }
                if (kept.size() < KEEP) {
                    kept.write(buffer, 0, Math.min(n, KEEP - kept.size()));
                }
                if (parser.parse(ByteBuffer.wrap(buffer, 0, n))) {
                    return response(kept, true, null);
                }
                if (parser.bodyBytes() >= stopAfterBodyBytes) {
                    return response(kept, false, "stopped");
                }
            }
        } catch (SocketTimeoutException e) {
            return response(kept, false, "timeout");
        } catch (HttpFramingException e) {
            return response(kept, false, "framing");
        } catch (IOException e) {
            return response(kept, false, "io: " + e.getMessage());
        }
    }

    public Response read(int timeoutMillis) throws IOException {
        return read(timeoutMillis, Long.MAX_VALUE);
    }

    private Response response(ByteArrayOutputStream kept, boolean complete, String error) {
        return new Response(parser.status(), parser.bodyBytes(), complete,
                kept.toString(StandardCharsets.ISO_8859_1), error);
    }

    /** True if the server closed (FIN or reset) within {@code waitMillis}; bytes that still arrive are skipped. */
    public boolean closedByServer(int waitMillis) throws IOException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        byte[] buffer = new byte[READ_BUFFER];
        try {
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return false;
                }
                socket.setSoTimeout((int) left);
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /** How the server ended an idle connection within {@code waitMillis}: "FIN", "RST" or "open". */
    public String closeKind(int waitMillis) {
        try {
            socket.setSoTimeout(waitMillis);
            return in.read(new byte[READ_BUFFER]) < 0 ? "FIN" : "data";
        } catch (SocketTimeoutException e) {
            return "open";
        } catch (IOException e) {
            return "RST";
        }
    }

    /** Sends FIN: the request is complete and nothing more will come, but the response is still read. */
    public void halfClose() throws IOException {
        socket.shutdownOutput();
    }

    /** Closes with RST (SO_LINGER 0): a client that vanishes abruptly. */
    public void reset() {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
