package io.hybridconnector.bench.harness.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * A closed-loop HTTP/1.1 keep-alive load generator on one thread and one selector; runs entirely on the thread that
 * calls {@link #run}. One thread keeps 1000 connections cheap (no thread per connection, no locks, no hand-offs),
 * and its CPU time in the window is reported, so that a client-bound run is visible ({@link CellResult#clientCpuShare}).
 *
 * <p>Per connection: connect, write the GET, read until {@link ResponseParser} frames a complete response, record
 * the latency, write the next GET at once. With an {@link CellSpec.Upload} the request is a POST whose body leaves in
 * pieces, a pause apart; the latency then includes the upload. Phases:
 * <pre>
 *   WARMUP (not counted) ──► MEASURE (counted; Probe.measureStart/measureEnd around it) ──► DRAIN (no new requests;
 *                                                                                  in-flight ones finish) ──► closed
 * </pre>
 * Only responses with status 200, correct framing and (if given) the expected body length count; everything else is
 * an error by kind, and a connection that cannot be reused is closed and replaced so the concurrency stays constant.
 */
public final class LoadGenerator {

    private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long RETRY_CONNECT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long HOUSEKEEPING_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_DRAIN_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Large enough that a 100 KB response usually takes a few reads, small enough to stay in L2. */
    private static final int READ_BUFFER = 256 * 1024;

    private enum Phase { WARMUP, MEASURE, DRAIN }

    private final CellSpec spec;
    private final Probe probe;
    private final ByteBuffer request;
    /** Where each piece of {@link #request} written at once ends: one piece for a GET. */
    private final int[] pieceEnds;
    private final long piecePauseNanos;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER);
    private final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    private final Map<String, Long> errors = new HashMap<>();
    private final List<Connection> connections = new ArrayList<>();
    /** Connections in a think pause, earliest next request first (empty with zero think time). */
    private final PriorityQueue<Connection> thinking = new PriorityQueue<>((a, b) -> Long.compare(a.sendAt, b.sendAt));
    /** Connections pausing between two pieces of an upload, earliest next piece first (empty without uploads). */
    private final PriorityQueue<Connection> uploading = new PriorityQueue<>(
            (a, b) -> Long.compare(a.pieceAt, b.pieceAt));
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private Selector selector;
    private Phase phase = Phase.WARMUP;
    private long requests;
    private long bodyBytes;
    private long reconnects;

    private LoadGenerator(CellSpec spec, Probe probe) {
        this.spec = spec;
        this.probe = probe;
        byte[] bytes = spec.requestBytes();
        this.request = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        this.pieceEnds = spec.pieceEnds(bytes.length);
        this.piecePauseNanos = spec.upload() == null ? 0 : spec.upload().pause().toNanos();
    }

    /** Runs one cell on the calling thread and returns what its measured window saw. */
    public static CellResult run(CellSpec spec, Probe probe) throws IOException {
        return new LoadGenerator(spec, probe).run();
    }

    public static CellResult run(CellSpec spec) throws IOException {
        return run(spec, Probe.NONE);
    }

    private CellResult run() throws IOException {
        probe.beforeWarmup();
        selector = Selector.open();
        try {
            long now = System.nanoTime();
            for (int i = 0; i < spec.connections(); i++) {
                Connection c = new Connection();
                connections.add(c);
                connect(c, now);
            }
            long measureStart = now + spec.warmup().toNanos();
            long measureEnd = Long.MAX_VALUE;
            long windowStart = 0;
            long windowEnd = 0;
            long cpuStart = 0;
            long cpuEnd = 0;
            long drainDeadline = Long.MAX_VALUE;
            long nextHousekeeping = now + HOUSEKEEPING_NANOS;
            while (true) {
                now = System.nanoTime();
                if (phase == Phase.WARMUP && now >= measureStart) {
                    probe.measureStart();
                    cpuStart = threads.getCurrentThreadCpuTime();
                    windowStart = System.nanoTime();
                    measureEnd = windowStart + spec.duration().toNanos();
                    phase = Phase.MEASURE;
                } else if (phase == Phase.MEASURE && now >= measureEnd) {
                    windowEnd = now;
                    cpuEnd = threads.getCurrentThreadCpuTime();
                    phase = Phase.DRAIN;
                    probe.measureEnd();
                    drainDeadline = System.nanoTime() + Math.min(MAX_DRAIN_NANOS, spec.requestTimeout().toNanos());
                }
                if (phase == Phase.DRAIN && (inFlight() == 0 || now >= drainDeadline)) {
                    break;
                }
                if (now >= nextHousekeeping) {
                    housekeeping(now);
                    nextHousekeeping = now + HOUSEKEEPING_NANOS;
                }
                sendAfterThinking(now);
                sendPiecesDue(now);
                long next = Math.min(nextHousekeeping, phase == Phase.WARMUP ? measureStart
                        : phase == Phase.MEASURE ? measureEnd : drainDeadline);
                if (!thinking.isEmpty()) {
                    next = Math.min(next, thinking.peek().sendAt);
                }
                if (!uploading.isEmpty()) {
                    next = Math.min(next, uploading.peek().pieceAt);
                }
                long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(next - now));
                if (selector.select(waitMillis) > 0) {
                    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                    while (keys.hasNext()) {
                        SelectionKey key = keys.next();
                        keys.remove();
                        handle(key);
                    }
                }
            }
            return new CellResult(requests, Map.copyOf(errors), windowEnd - windowStart, latency,
                    cpuEnd - cpuStart, bodyBytes, reconnects);
        } finally {
            for (Connection c : connections) {
                c.close();
            }
            selector.close();
        }
    }

    private void handle(SelectionKey key) {
        Connection c = (Connection) key.attachment();
        if (!key.isValid()) {
            return;
        }
        try {
            if (key.isConnectable()) {
                if (c.channel.finishConnect()) {
                    c.connected = true;
                    key.interestOps(SelectionKey.OP_READ);
                    send(c, System.nanoTime());
                }
            } else if (key.isWritable()) {
                writeRest(c);
            } else if (key.isReadable()) {
                read(c);
            }
        } catch (HttpFramingException e) {
            fail(c, "framing");
        } catch (IOException e) {
            fail(c, c.connected ? "io" : "connect");
        }
    }

    private void read(Connection c) throws IOException, HttpFramingException {
        ByteBuffer buf = readBuffer;
        buf.clear();
        SocketChannel channel = c.channel;
        int n = channel.read(buf);
        if (n < 0) {
            if (c.awaitingClose) {
                replace(c); // the server closed after its Connection: close response, as it should
            } else if (c.inFlight) {
                fail(c, "closed");
            } else {
                replace(c); // the server closed an idle connection (only possible while draining)
            }
            return;
        }
        buf.flip();
        while (buf.hasRemaining()) {
            if (!c.inFlight) {
                fail(c, "unsolicited-bytes");
                return;
            }
            if (c.parser.parse(buf)) {
                if (c.written < request.capacity()) {
                    fail(c, "early-response"); // answered before the whole body left: the rest would be misread
                    return;
                }
                complete(c, System.nanoTime());
                if (c.awaitingClose && !buf.hasRemaining()) {
                    readClose(c);
                    return;
                }
            }
        }
    }

    /**
     * After a {@code Connection: close} response the server's close usually arrived with it: take it now rather than
     * after another select round. Bytes instead of the close are an error, nothing yet leaves the connection waiting.
     */
    private void readClose(Connection c) throws IOException {
        ByteBuffer buf = readBuffer;
        buf.clear();
        int n = c.channel.read(buf);
        if (n < 0) {
            replace(c);
        } else if (n > 0) {
            fail(c, "unsolicited-bytes");
        }
    }

    private void complete(Connection c, long now) {
        ResponseParser p = c.parser;
        c.inFlight = false;
        boolean counting = phase == Phase.MEASURE;
        if (p.status() != 200) {
            error("status-" + p.status());
        } else if (spec.expectedBodyBytes() >= 0 && p.bodyBytes() != spec.expectedBodyBytes()) {
            error("body-length");
        } else if (counting) {
            requests++;
            bodyBytes += p.bodyBytes();
            latency.recordValue(Math.min(now - c.sentAt, MAX_LATENCY_NANOS));
        }
        boolean close = p.closeAfter();
        p.reset();
        if (close) {
            // Wait for the server's close, as browsers and HTTP libraries do: the side that closes first keeps the
            // connection in TIME_WAIT, and a client that did kept every ephemeral port there and searched them on
            // each connect(), which then limited the churn cell rather than the server.
            c.awaitingClose = true;
        } else if (phase != Phase.DRAIN) {
            sendOrThink(c, now);
        }
    }

    /** With a think time, the next request waits an exponentially distributed pause; without, it goes at once. */
    private void sendOrThink(Connection c, long now) {
        long mean = spec.thinkTime().toNanos();
        if (mean <= 0) {
            send(c, now);
            return;
        }
        double u = ThreadLocalRandom.current().nextDouble();
        c.sendAt = now + (long) (-Math.log(1 - u) * mean);
        thinking.add(c);
    }

    private void sendAfterThinking(long now) {
        while (!thinking.isEmpty() && thinking.peek().sendAt <= now) {
            Connection c = thinking.poll();
            if (phase != Phase.DRAIN && c.isOpen() && !c.inFlight) {
                send(c, now);
            }
        }
    }

    /** The next piece of each upload whose pause is over. */
    private void sendPiecesDue(long now) {
        while (!uploading.isEmpty() && uploading.peek().pieceAt <= now) {
            Connection c = uploading.poll();
            if (c.isOpen() && c.inFlight) {
                try {
                    writeRest(c);
                } catch (IOException e) {
                    fail(c, "io");
                }
            }
        }
    }

    private void send(Connection c, long now) {
        c.sentAt = now;
        c.inFlight = true;
        c.written = 0;
        c.piece = 0;
        try {
            writeRest(c);
        } catch (IOException e) {
            fail(c, "io");
        }
    }

    /**
     * Writes what the kernel takes of the current piece; once it is all written, the next piece (an upload's) waits
     * its pause in {@link #uploading}, and the connection waits for readability meanwhile (an early answer or close).
     */
    private void writeRest(Connection c) throws IOException {
        ByteBuffer r = request;
        int end = pieceEnds[c.piece];
        r.limit(end).position(c.written);
        c.written += c.channel.write(r);
        int ops = c.written < end ? SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        if (c.written == end && c.piece < pieceEnds.length - 1) {
            c.piece++;
            c.pieceAt = System.nanoTime() + piecePauseNanos;
            uploading.add(c);
        }
        if (c.key.interestOps() != ops) {
            c.key.interestOps(ops);
        }
    }

    private void connect(Connection c, long now) {
        c.reset();
        try {
            SocketChannel ch = SocketChannel.open();
            c.channel = ch;
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            // Over loopback the handshake has usually completed by the time connect() returns EINPROGRESS: finish
            // it at once rather than after a select round (an epoll_wait and an interest change per connection).
            boolean done = ch.connect(spec.target()) || ch.finishConnect();
            c.key = ch.register(selector, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, c);
            c.connected = done;
            if (done) {
                send(c, now);
            }
        } catch (IOException e) {
            error("connect");
            c.close();
            c.retryAt = now + RETRY_CONNECT_NANOS;
        }
    }

    private void fail(Connection c, String kind) {
        error(kind);
        replace(c);
    }

    /** Closes the connection and opens a new one, unless draining (then in-flight requests only finish). */
    private void replace(Connection c) {
        thinking.remove(c);
        uploading.remove(c);
        c.close();
        if (phase != Phase.DRAIN) {
            reconnects++;
            connect(c, System.nanoTime());
        }
    }

    private void housekeeping(long now) {
        long timeout = spec.requestTimeout().toNanos();
        for (Connection c : connections) {
            if ((c.inFlight || c.awaitingClose) && now - c.sentAt > timeout) {
                fail(c, c.inFlight ? "timeout" : "no-close");
            } else if (!c.isOpen() && c.retryAt != 0 && now >= c.retryAt && phase != Phase.DRAIN) {
                connect(c, now);
            }
        }
    }

    private void error(String kind) {
        if (phase == Phase.MEASURE) {
            errors.merge(kind, 1L, Long::sum);
        }
    }

    private int inFlight() {
        int n = 0;
        for (Connection c : connections) {
            if (c.inFlight) {
                n++;
            }
        }
        return n;
    }

    /** One client connection's state; touched by the load generator's thread only. */
    private static final class Connection {
        final ResponseParser parser = new ResponseParser();
        SocketChannel channel;
        SelectionKey key;
        boolean connected;
        boolean inFlight;
        /** The response said {@code Connection: close}; the server's close is awaited before a new connection. */
        boolean awaitingClose;
        int written;
        /** The piece of the request being written (always 0 for a GET). */
        int piece;
        long sentAt;
        /** When an uploading connection writes its next piece. */
        long pieceAt;
        /** When a thinking connection sends its next request. */
        long sendAt;
        long retryAt;

        void reset() {
            parser.reset();
            connected = false;
            inFlight = false;
            awaitingClose = false;
            written = 0;
            piece = 0;
            retryAt = 0;
        }

        boolean isOpen() {
            return channel != null && channel.isOpen();
        }

        void close() {
            inFlight = false;
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // closing after an error; nothing to report beyond the error itself
                }
            }
        }
    }
}
