package io.hybridconnector;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A small HTTP/2 client on a plain {@link Socket}, for tests that must control what reaches the server and when: the
 * connection preface by prior knowledge, after an HTTP/1.1 upgrade, or after TLS with ALPN {@code h2}. It sends
 * POSTs one at a time with a body of any size, honouring the server's flow-control windows and frame size, and GETs
 * on as many concurrent streams as the caller opens; it gives the server windows of 2^31-1 so that responses never
 * wait for it.
 * <p>
 * A reader thread takes every frame the server sends (settings, pings, window updates, the response); the calling
 * thread writes. Header blocks are sent as HPACK literals without indexing, so the client keeps no dynamic table;
 * the response status is read from the first header of the block, which Tomcat encodes from the static table.
 */
public final class H2Client implements Closeable {

    static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int SETTINGS = 4;
    private static final int PING = 6;
    private static final int GOAWAY = 7;
    private static final int WINDOW_UPDATE = 8;
    private static final int FLAG_END_STREAM = 0x1;
    private static final int FLAG_ACK = 0x1;
    private static final int FLAG_END_HEADERS = 0x4;
    private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    private static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    private static final int MAX_WINDOW = Integer.MAX_VALUE;
    private static final int DEFAULT_WINDOW = 65535;

    private final Socket socket;
    private final String scheme;
    private final String authority;
    private final DataInputStream in;
    private final OutputStream out;
    private final Thread reader;

    // Guarded by this: the windows the server gave (the stream one for the POST in flight), and the open streams.
    private long connectionWindow = DEFAULT_WINDOW;
    private long streamWindow;
    private int initialStreamWindow = DEFAULT_WINDOW;
    private int maxFrameSize = 16384;
    private int streamId;
    private final Map<Integer,Response> open = new HashMap<>();
    private IOException failure;

    private H2Client(Socket socket, String scheme, InputStream in, int firstStreamId) throws IOException {
        this.socket = socket;
        // Frames leave one flush at a time: without this, Nagle holds a small frame until the previous one is acked,
        // and the server's delayed ACK makes that 40 ms.
        socket.setTcpNoDelay(true);
        this.scheme = scheme;
        this.authority = "localhost:" + socket.getPort();
        this.in = new DataInputStream(in);
        this.out = new BufferedOutputStream(socket.getOutputStream(), 32768);
        this.streamId = firstStreamId;
        this.reader = new Thread(this::readFrames, "h2-client-reader");
        this.reader.setDaemon(true);
    }

    /** HTTP/2 over cleartext by prior knowledge: the preface is the first thing on the connection. */
    public static H2Client priorKnowledge(Socket socket) throws IOException {
        H2Client client = new H2Client(socket, "http", new BufferedInputStream(socket.getInputStream()), 1);
        client.start();
        return client;
    }

    /** HTTP/2 over TLS: the socket negotiated {@code h2} by ALPN. */
    public static H2Client overTls(Socket socket) throws IOException {
        H2Client client = new H2Client(socket, "https", new BufferedInputStream(socket.getInputStream()), 1);
        client.start();
        return client;
    }

    /**
     * HTTP/2 over cleartext by upgrade: a GET of {@code upgradePath} asks for {@code h2c}; after the server's 101
     * the client sends the preface, and the GET's response arrives as stream 1, which this method reads.
     */
    public static H2Client upgrade(Socket socket, String upgradePath) throws IOException {
        OutputStream raw = socket.getOutputStream();
        raw.write(("GET " + upgradePath + " HTTP/1.1\r\nHost: localhost:" + socket.getPort() +
                "\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQ_____\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        raw.flush();
        InputStream buffered = new BufferedInputStream(socket.getInputStream());
        String head = readHead(buffered);
        if (!head.startsWith("HTTP/1.1 101")) {
            throw new IOException("no upgrade to h2c: " + head);
        }
        H2Client client = new H2Client(socket, "http", buffered, 3);
        Response first;
        synchronized (client) {
            first = new Response(1);
            client.open.put(1, first);
        }
        client.start();
        client.await(first);
        if (first.status != 200) {
            throw new IOException("the upgrade request's response on stream 1: status " + first.status + ", headers " +
                    first.headerHex);
        }
        return client;
    }

    private void start() throws IOException {
        synchronized (out) {
            out.write(PREFACE.getBytes(StandardCharsets.ISO_8859_1));
            // SETTINGS: the largest stream window; then the largest connection window.
            writeFrameHeader(6, SETTINGS, 0, 0);
            writeSetting(SETTINGS_INITIAL_WINDOW_SIZE, MAX_WINDOW);
            writeFrameHeader(4, WINDOW_UPDATE, 0, 0);
            writeInt(MAX_WINDOW - DEFAULT_WINDOW);
            out.flush();
        }
        reader.start();
    }

    /**
     * POSTs {@code body} to {@code path} on a new stream and returns the response. The body leaves in DATA frames as
     * fast as the server's windows allow, while the response may already be arriving.
     */
    public Response post(String path, byte[] body) throws IOException {
        Response response = openStream("POST", path, body.length, body.length == 0 ? FLAG_END_STREAM : 0);
        int sent = 0;
        while (sent < body.length) {
            int n = takeWindow(body.length - sent);
            synchronized (out) {
                writeFrameHeader(n, DATA, sent + n == body.length ? FLAG_END_STREAM : 0, response.streamId);
                out.write(body, sent, n);
                out.flush();
            }
            sent += n;
        }
        return await(response);
    }

    /**
     * GETs {@code path} on a new stream and returns at once; {@link #await} the response. Any number may be in flight.
     */
    public Response startGet(String path) throws IOException {
        return openStream("GET", path, -1, FLAG_END_STREAM);
    }

    /**
     * Starts a POST that announces {@code contentLength} bytes and sends only {@code part} of them, without ending the
     * stream: the server's request waits for the rest. {@link #reset} then cancels it.
     */
    public Response startPost(String path, byte[] part, int contentLength) throws IOException {
        Response response = openStream("POST", path, contentLength, 0);
        int n = takeWindow(part.length);
        synchronized (out) {
            writeFrameHeader(n, DATA, 0, response.streamId);
            out.write(part, 0, n);
            out.flush();
        }
        return response;
    }

    /**
     * Opens the next stream with its HEADERS frame. The stream ID is taken and the frame written while the writer's
     * lock ({@code out}) is held, so that new stream IDs reach the server in increasing order whichever threads open
     * streams: RFC 9113 5.1.1 makes a lower ID after a higher one a connection error, which Tomcat answers with GOAWAY.
     * Locks in this order only: {@code out}, then {@code this}; nothing takes {@code out} while holding {@code this}.
     * A POST ({@code contentLength >= 0}) starts with the server's initial stream window.
     */
    private Response openStream(String method, String path, int contentLength, int flags) throws IOException {
        byte[] block = headerBlock(method, path, contentLength);
        synchronized (out) {
            Response response;
            synchronized (this) {
                response = new Response(streamId);
                streamId += 2;
                open.put(response.streamId, response);
                if (contentLength >= 0) {
                    streamWindow = initialStreamWindow;
                }
            }
            writeFrameHeader(block.length, HEADERS, FLAG_END_HEADERS | flags, response.streamId);
            out.write(block);
            out.flush();
            return response;
        }
    }

    /** Sends RST_STREAM for the stream of {@code response} with {@code errorCode} (8: CANCEL); the stream is gone. */
    public void reset(Response response, int errorCode) throws IOException {
        synchronized (this) {
            open.remove(response.streamId);
        }
        synchronized (out) {
            writeFrameHeader(4, RST_STREAM, 0, response.streamId);
            writeInt(errorCode);
            out.flush();
        }
    }

    private synchronized int takeWindow(int wanted) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (connectionWindow <= 0 || streamWindow <= 0) {
            failIfFailed(null);
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("no flow-control window from the server for 30 s (connection " +
                        connectionWindow + ", stream " + streamWindow + ")");
            }
            waitNanos(left);
        }
        int n = (int) Math.min(Math.min(wanted, maxFrameSize), Math.min(connectionWindow, streamWindow));
        connectionWindow -= n;
        streamWindow -= n;
        return n;
    }

    /** Waits up to 60 s for a response to be complete. */
    public synchronized Response await(Response response) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!response.complete) {
            failIfFailed(response);
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("stream " + response.streamId + ": no complete response in 60 s, " +
                        response.body.size() + " body bytes so far");
            }
            waitNanos(left);
        }
        return response;
    }

    private void waitNanos(long nanos) throws IOException {
        try {
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(100)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private void failIfFailed(Response response) throws IOException {
        if (response != null && response.reset != null) {
            throw new IOException(response.reset);
        }
        if (failure != null) {
            throw new IOException(failure.getMessage(), failure);
        }
    }

    // ------------------------------------------------------------------ the reader thread

    private void readFrames() {
        try {
            while (true) {
                int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int id = in.readInt() & 0x7fffffff;
                byte[] payload = new byte[length];
                in.readFully(payload);
                onFrame(type, flags, id, payload);
            }
        } catch (IOException e) {
            synchronized (this) {
                failure = e instanceof EOFException ? new IOException("the server closed the connection", e) : e;
                notifyAll();
            }
        }
    }

    private void onFrame(int type, int flags, int id, byte[] payload) throws IOException {
        switch (type) {
            case SETTINGS:
                if ((flags & FLAG_ACK) == 0) {
                    onSettings(payload);
                    synchronized (out) {
                        writeFrameHeader(0, SETTINGS, FLAG_ACK, 0);
                        out.flush();
                    }
                }
                break;
            case PING:
                if ((flags & FLAG_ACK) == 0) {
                    synchronized (out) {
                        writeFrameHeader(8, PING, FLAG_ACK, 0);
                        out.write(payload);
                        out.flush();
                    }
                }
                break;
            case WINDOW_UPDATE:
                onWindowUpdate(id, readInt(payload, 0) & 0x7fffffff);
                break;
            case HEADERS:
                onHeaders(id, flags, payload);
                break;
            case DATA:
                onData(id, flags, payload);
                break;
            case RST_STREAM:
                onReset(id, "stream " + id + " reset by the server, error code " + readInt(payload, 0));
                break;
            case GOAWAY:
                throw new IOException("GOAWAY from the server, error code " + readInt(payload, 4) + ": " +
                        new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8));
            default:
                break; // PRIORITY, PUSH_PROMISE (never enabled), unknown types: ignored as RFC 9113 says
        }
    }

    private synchronized void onSettings(byte[] payload) {
        for (int i = 0; i + 6 <= payload.length; i += 6) {
            int key = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
            int value = readInt(payload, i + 2);
            if (key == SETTINGS_INITIAL_WINDOW_SIZE) {
                streamWindow += value - initialStreamWindow;
                initialStreamWindow = value;
            } else if (key == SETTINGS_MAX_FRAME_SIZE) {
                maxFrameSize = value;
            }
        }
        notifyAll();
    }

    private synchronized void onWindowUpdate(int id, int increment) {
        if (id == 0) {
            connectionWindow += increment;
        } else if (open.containsKey(id)) {
            streamWindow += increment;
        }
        notifyAll();
    }

    private synchronized void onHeaders(int id, int flags, byte[] block) {
        Response response = open.get(id);
        if (response == null) {
            return;
        }
        if (response.status == 0) {
            response.status = statusOf(block);
            response.headerHex = HexFormat.of().formatHex(block, 0, Math.min(block.length, 32));
        }
        if ((flags & FLAG_END_STREAM) != 0) {
            complete(response);
        }
    }

    private synchronized void onData(int id, int flags, byte[] payload) {
        Response response = open.get(id);
        if (response == null) {
            return;
        }
        response.body.write(payload, 0, payload.length);
        if ((flags & FLAG_END_STREAM) != 0) {
            complete(response);
        }
    }

    private void complete(Response response) {
        response.completedNanos = System.nanoTime();
        response.complete = true;
        open.remove(response.streamId);
        notifyAll();
    }

    private synchronized void onReset(int id, String why) {
        Response response = open.remove(id);
        if (response != null) {
            response.reset = why;
            notifyAll();
        }
    }

    /**
     * The status from the first field of a response header block: an indexed field of HPACK's static table (8-14:
     * 200, 204, 206, 304, 400, 404, 500), or a literal {@code :status} whose name is static entry 8.
     */
    private static int statusOf(byte[] block) {
        int at = 0;
        while ((block[at] & 0xe0) == 0x20) {
            // A dynamic table size update (Tomcat's first block on a connection starts with one): skip its integer.
            if ((block[at++] & 0x1f) == 0x1f) {
                while ((block[at++] & 0x80) != 0) {
                    // continuation bytes of the integer
                }
            }
        }
        int first = block[at] & 0xff;
        if ((first & 0x80) != 0) {
            int index = first & 0x7f;
            int[] statuses = { 200, 204, 206, 304, 400, 404, 500 };
            return index >= 8 && index <= 14 ? statuses[index - 8] : -1;
        }
        // Literal with an indexed name (with or without indexing): the value follows as a string without Huffman.
        int valueAt = (first & 0xc0) == 0x40 || (first & 0xe0) == 0 ? at + 1 : -1;
        if (valueAt < 0 || (block[valueAt] & 0x80) != 0) {
            return -1;
        }
        int length = block[valueAt] & 0x7f;
        return Integer.parseInt(new String(block, valueAt + 1, length, StandardCharsets.ISO_8859_1));
    }

    // ------------------------------------------------------------------ encoding

    /**
     * Pseudo-header fields by index into HPACK's static table (RFC 7541 appendix A), as Tomcat's decoder insists:
     * {@code :method GET} (2) or {@code POST} (3) and {@code :scheme} (6, 7) whole, {@code :path} (4) and {@code :authority} (1) as
     * literals with an indexed name; the other fields as literals with a new name. Never indexed, no Huffman.
     */
    private byte[] headerBlock(String method, String path, int contentLength) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        switch (method) {
            case "GET":
                block.write(0x80 | 2);
                break;
            case "POST":
                block.write(0x80 | 3);
                break;
            default:
                throw new IllegalArgumentException("only GET and POST are encoded: " + method);
        }
        block.write(0x80 | ("https".equals(scheme) ? 7 : 6));
        literalIndexedName(block, 4, path);
        literalIndexedName(block, 1, authority);
        if (contentLength >= 0) {
            literal(block, "content-type", "application/octet-stream");
            literal(block, "content-length", Integer.toString(contentLength));
        }
        return block.toByteArray();
    }

    /** A literal header field without indexing, name from the static table (RFC 7541 6.2.2); index below 15. */
    private static void literalIndexedName(ByteArrayOutputStream block, int index, String value) {
        block.write(index);
        string(block, value);
    }

    /** A literal header field without indexing, new name (RFC 7541 6.2.2). */
    private static void literal(ByteArrayOutputStream block, String name, String value) {
        block.write(0);
        string(block, name);
        string(block, value);
    }

    /** A string literal without Huffman; lengths below 127. */
    private static void string(ByteArrayOutputStream block, String value) {
        byte[] v = value.getBytes(StandardCharsets.ISO_8859_1);
        block.write(v.length);
        block.write(v, 0, v.length);
    }

    private void writeFrameHeader(int length, int type, int flags, int id) throws IOException {
        out.write(length >>> 16);
        out.write(length >>> 8);
        out.write(length);
        out.write(type);
        out.write(flags);
        writeInt(id);
    }

    private void writeSetting(int key, int value) throws IOException {
        out.write(key >>> 8);
        out.write(key);
        writeInt(value);
    }

    private void writeInt(int value) throws IOException {
        out.write(value >>> 24);
        out.write(value >>> 16);
        out.write(value >>> 8);
        out.write(value);
    }

    private static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            head.append((char) c);
            if (head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4) {
                return head.toString();
            }
        }
        throw new EOFException("the connection closed before the response head ended: " + head);
    }

    @Override
    public void close() throws IOException {
        socket.close();
        try {
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A response: its status and body, and when it was complete. Read after {@link #await}. */
    public static final class Response {
        public final int streamId;
        public int status;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean complete;
        String reset;
        /** {@link System#nanoTime()} when the last frame of the response arrived. */
        public volatile long completedNanos;
        /** The start of the response's header block, for messages. */
        public String headerHex;

        Response(int streamId) {
            this.streamId = streamId;
        }

        public byte[] body() {
            return body.toByteArray();
        }
    }
}
