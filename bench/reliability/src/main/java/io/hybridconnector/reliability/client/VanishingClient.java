package io.hybridconnector.reliability.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The client that vanishes without a FIN (scenario 4), a process of its own: the suite runs it inside its client
 * network namespace, cuts the namespace's link, then kills it, so that the server hears nothing more from any of its
 * connections. For each port given it opens one connection of each {@link Kind} and prints one line per connection,
 * {@code KIND PORT LOCAL_PORT LAST_BYTE_EPOCH_MILLIS} (the last byte it sent or read, on the machine's clock, which
 * the suite shares), then {@code ready}, and waits to be killed. Main thread only.
 *
 * <p>Usage: {@code VanishingClient ADDRESS PORT...}
 */
public final class VanishingClient {

    /** What a connection is doing when its client vanishes. */
    public enum Kind {
        IDLE("idle keep-alive after one request (0.1 KB)"),
        MID_REQUEST("mid-request: POST announcing 10 MB, 64 KB of it sent"),
        MID_RESPONSE("mid-response: 10 MB asked, 64 KB read, 16 KB receive buffer");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    /** Time for the server to fill the stalled connections' buffers and block, before the client says ready. */
    private static final int SETTLE_MILLIS = 500;

    private VanishingClient() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        List<RawConnection> open = new ArrayList<>(); // referenced until the process is killed
        for (int i = 1; i < args.length; i++) {
            InetSocketAddress at = new InetSocketAddress(args[0], Integer.parseInt(args[i]));
            for (Kind kind : Kind.values()) {
                RawConnection c = open(kind, at);
                open.add(c);
                System.out.println(kind + " " + at.getPort() + " " + c.socket().getLocalPort() + " "
                        + System.currentTimeMillis());
            }
        }
        Thread.sleep(SETTLE_MILLIS);
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static RawConnection open(Kind kind, InetSocketAddress at) throws IOException {
        return switch (kind) {
            case IDLE -> idle(at);
            case MID_REQUEST -> midRequest(at);
            case MID_RESPONSE -> midResponse(at);
        };
    }

    private static RawConnection idle(InetSocketAddress at) throws IOException {
        RawConnection c = RawConnection.open(at);
        c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
        RawConnection.Response r = c.read(5_000);
        if (!r.complete() || r.status() != 200) {
            throw new IOException("the idle connection's request got " + r.status() + " " + r.error());
        }
        return c;
    }

    private static RawConnection midRequest(InetSocketAddress at) throws IOException {
        RawConnection c = RawConnection.open(at);
        c.write("POST /samples/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10485760\r\n\r\n");
        c.write(new byte[64 * 1024]);
        return c;
    }

    private static RawConnection midResponse(InetSocketAddress at) throws IOException {
        RawConnection c = RawConnection.open(at, 16 * 1024);
        c.write("GET /samples/fixed?kb=10240 HTTP/1.1\r\nHost: x\r\n\r\n");
        RawConnection.Response r = c.read(5_000, 64 * 1024);
        if (r.status() != 200) {
            throw new IOException("the 10 MB response began with " + r.status() + " " + r.error());
        }
        return c;
    }
}
