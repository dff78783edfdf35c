package io.hybridconnector.tls;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Collections;
import java.util.List;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

import io.hybridconnector.write.PendingOutput;

import org.apache.tomcat.util.net.TLSClientHelloExtractor;
import org.apache.tomcat.util.net.TLSClientHelloExtractor.ExtractorResult;

/**
 * TLS over one non-blocking {@link SocketChannel}, with an {@link SSLEngine} chosen from the client's hello (SNI,
 * ALPN). Reads return plaintext; writes take plaintext and return how much of it they consumed.
 * <p>
 * Never waits. Encrypted bytes the kernel did not take stay here ({@link #hasPendingOutput()}) and leave before
 * anything else is encrypted; the connection counts them as bytes behind. Decrypted bytes that did not fit the
 * caller's buffer, and received records not decrypted yet, stay here too ({@link #hasBufferedInput()}): the next read
 * returns them without a syscall.
 * <p>
 * Not thread-safe: used under the connection's lock, or by the loop's leader that owns the connection.
 * <p>
 * <b>Follows Tomcat 10.1.59</b> {@code org/apache/tomcat/util/net/SecureNioChannel.java}, re-synced 2026-11-25:
 * {@code processSNI} ({@link #readClientHello}: the hello is parsed with Tomcat's {@code TLSClientHelloExtractor},
 * grown up to {@code sniParseLimit}, a plain-HTTP request answered with its 400, ALPN taken only from a hello with
 * SNI, the default host for a hello too large to parse; the hello's protocols, groups and signature schemes choose the
 * engine, {@link ClientHello}), {@code handshake}, {@code read}, {@code write} and {@code close}. Tomcat 11.0.25's
 * {@code SecureNioChannel} is the same but for how the hello reaches the endpoint (arguments, not 10.1's thread
 * locals). Differs on purpose: it never waits (Tomcat's {@code handshake} returns interest ops too, but its
 * {@code rehandshake} blocks on a selector, and its reads and writes are driven by the poller): encrypted bytes the kernel did not take stay here and
 * count as the connection's bytes behind; the engine's delegated tasks run inline (Tomcat's too, on its worker); no
 * renegotiation ({@code rehandshake}, so no late client-certificate request); {@code close_notify} only when it can
 * leave at once; buffers come from a pool and go back while the connection is idle; messages are our own words.
 */
public final class TlsChannel implements GatheringByteChannel, ScatteringByteChannel, PendingOutput {

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final ByteBuffer NONE = TlsBufferPool.NONE;
    /** Room for one TLS record and its header: enough to read a ClientHello of usual size. */
    private static final int RECORD = TlsBufferPool.BUFFER_SIZE;

    private final SocketChannel socket;
    private final ByteBuffer[] one = new ByteBuffer[1];
    private final EngineFactory factory;
    private final TlsBufferPool pool;
    private final int sniParseLimit;

    private SSLEngine engine;
    /** Received ciphertext not unwrapped yet; read mode (position..limit). {@code NONE} while idle. */
    private ByteBuffer netIn;
    /** Encrypted bytes not taken by the kernel yet; read mode. {@code NONE} while idle. */
    private ByteBuffer netOut;
    /** Decrypted bytes the caller's buffer could not take; read mode. {@code NONE} while idle. */
    private ByteBuffer appIn;
    private String sniHostName;
    private List<String> clientProtocols = Collections.emptyList();
    private List<String> clientCipherNames = Collections.emptyList();
    private boolean handshakeDone;
    /** A read returned application data: {@link #applicationDataRead}. */
    private boolean applicationDataRead;
    private boolean inboundDone;
    private boolean open = true;
    /** The last socket read returned fewer bytes than there was room for: the socket was drained. */
    private boolean drained;
    /** The engine's largest plaintext of one record, and largest record. */
    private int appSize = RECORD;
    private int packetSize = RECORD;

    public TlsChannel(SocketChannel socket, EngineFactory factory, TlsBufferPool pool, int sniParseLimit) {
        this.socket = socket;
        this.factory = factory;
        this.pool = pool;
        this.sniParseLimit = sniParseLimit;
        this.netIn = NONE;
        this.netOut = NONE;
        this.appIn = NONE;
    }

    /** @return a pooled buffer (or a larger one), empty, in read mode */
    private ByteBuffer fromPool(int atLeast) {
        ByteBuffer b = pool.take();
        if (b.capacity() < atLeast) {
            pool.give(b);
            b = ByteBuffer.allocate(atLeast);
            b.flip();
        }
        return b;
    }

    /**
     * Gives the buffers that hold nothing back to the pool: called when the connection goes idle between requests,
     * so that an idle TLS connection holds none. They are taken again at the next read or write.
     */
    public void releaseBuffers() {
        if (netIn != NONE && !netIn.hasRemaining()) {
            pool.give(netIn);
            netIn = NONE;
        }
        if (appIn != NONE && !appIn.hasRemaining()) {
            pool.give(appIn);
            appIn = NONE;
        }
        if (netOut != NONE && !netOut.hasRemaining()) {
            pool.give(netOut);
            netOut = NONE;
        }
    }

    public SSLEngine engine() {
        return engine;
    }

    public boolean isHandshakeDone() {
        return handshakeDone;
    }

    /**
     * @return whether a read returned application data yet: until then nothing of the connection's first request could
     *         be read without the engine. Owner of the connection; read by its loop's leader between runs, where a
     *         stale answer misplaces one run.
     */
    public boolean applicationDataRead() {
        return applicationDataRead;
    }

    /** @return the host name the client sent with SNI, lower case, or {@code null} */
    public String sniHostName() {
        return sniHostName;
    }

    /** @return the protocol versions the client offered in its hello */
    public List<String> clientProtocols() {
        return clientProtocols;
    }

    /** @return the cipher suites the client offered in its hello */
    public List<String> clientCipherNames() {
        return clientCipherNames;
    }

    /** @return whether decrypted bytes, or received records not decrypted yet, wait here */
    public boolean hasBufferedInput() {
        return appIn.hasRemaining() || netIn.hasRemaining();
    }

    /** @return whether the last socket read found the socket drained (nothing more without a readiness event) */
    public boolean socketDrained() {
        return drained;
    }

    // ------------------------------------------------------------------ handshake

    /**
     * Moves the handshake on as far as it goes without waiting: reads the client's hello and creates the engine for
     * its SNI host name, then wraps, unwraps and runs the engine's delegated tasks inline.
     *
     * @return 0 when the handshake is complete (and all of it has left), {@link SelectionKey#OP_READ} when it needs
     *         bytes from the client, {@link SelectionKey#OP_WRITE} when the kernel did not take the handshake bytes
     * @throws PlainTextRequestException if the client spoke plain HTTP (a 400 was sent)
     * @throws IOException               if the handshake failed (an alert was sent if possible) or the peer closed
     */
    public int handshake() throws IOException {
        if (engine == null) {
            int ops = readClientHello();
            if (ops != 0) {
                return ops;
            }
        }
        if (!flushOnce()) {
            return SelectionKey.OP_WRITE;
        }
        try {
            while (true) {
                HandshakeStatus status = engine.getHandshakeStatus();
                switch (status) {
                    case NEED_TASK:
                        runTasks();
                        break;
                    case NEED_WRAP: {
                        SSLEngineResult r = wrapInto(EMPTY);
                        if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                            netOut = TlsBufferPool.grown(netOut, Math.max(2 * netOut.capacity(), packetSize));
                            break;
                        }
                        if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                            flushOnce();
                            throw new SSLException("TLS engine closed during the handshake");
                        }
                        if (!flushOnce()) {
                            return SelectionKey.OP_WRITE;
                        }
                        break;
                    }
                    case NEED_UNWRAP:
                    case NEED_UNWRAP_AGAIN: {
                        SSLEngineResult r = unwrapInto(appInForWrite());
                        appIn.flip();
                        switch (r.getStatus()) {
                            case BUFFER_UNDERFLOW:
                                int n = fill();
                                if (n < 0) {
                                    throw new EOFException("Client closed the connection during the TLS handshake");
                                }
                                if (n == 0) {
                                    return SelectionKey.OP_READ;
                                }
                                break;
                            case CLOSED:
                                flushOnce();
                                throw new SSLException("Client closed TLS during the handshake");
                            default:
                                break;
                        }
                        break;
                    }
                    default:
                        // NOT_HANDSHAKING (FINISHED is only ever reported in a result): done once all has left.
                        if (netOut.hasRemaining()) {
                            return SelectionKey.OP_WRITE;
                        }
                        packetSize = engine.getSession().getPacketBufferSize();
                        appSize = engine.getSession().getApplicationBufferSize();
                        handshakeDone = true;
                        return 0;
                }
            }
        } catch (SSLException e) {
            sendAlert();
            throw e;
        }
    }

    /** Reads until the ClientHello can be parsed, then creates the engine. @return 0 or OP_READ */
    private int readClientHello() throws IOException {
        if (netIn == NONE) {
            netIn = fromPool(RECORD);
        }
        netIn.compact(); // write mode, as the extractor expects
        int n;
        TLSClientHelloExtractor hello;
        try {
            n = socket.read(netIn);
            if (n < 0) {
                throw new EOFException("Client closed the connection before its TLS hello");
            }
            hello = new TLSClientHelloExtractor(netIn);
            while (hello.getResult() == ExtractorResult.UNDERFLOW && netIn.capacity() < sniParseLimit) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.min(netIn.capacity() * 2, sniParseLimit));
                netIn.flip();
                bigger.put(netIn);
                netIn = bigger;
                if (socket.read(netIn) < 0) {
                    throw new EOFException("Client closed the connection in its TLS hello");
                }
                hello = new TLSClientHelloExtractor(netIn);
            }
        } finally {
            netIn.flip();
        }
        ClientHello parsed;
        switch (hello.getResult()) {
            case NEED_READ:
                return SelectionKey.OP_READ;
            case NON_SECURE:
                if (netOut == NONE) {
                    netOut = fromPool(TLSClientHelloExtractor.USE_TLS_RESPONSE.length);
                }
                netOut.clear();
                netOut.put(TLSClientHelloExtractor.USE_TLS_RESPONSE);
                netOut.flip();
                flushOnce();
                throw new PlainTextRequestException();
            case COMPLETE:
            case NOT_PRESENT:
                parsed = ClientHello.of(hello);
                clientProtocols = hello.getClientRequestedProtocols();
                clientCipherNames = hello.getClientRequestedCipherNames();
                break;
            default:
                // UNDERFLOW: a hello larger than sniParseLimit; the default host's configuration answers it.
                parsed = ClientHello.UNPARSED;
                break;
        }
        sniHostName = parsed.sniHostName();
        engine = factory.create(parsed);
        packetSize = engine.getSession().getPacketBufferSize();
        appSize = engine.getSession().getApplicationBufferSize();
        netIn = TlsBufferPool.grown(netIn, packetSize);
        engine.beginHandshake();
        return 0;
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    /** After a failed handshake: the engine has an alert queued; one attempt to send it. */
    private void sendAlert() {
        try {
            if (engine != null && engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
                wrapInto(EMPTY);
                flushOnce();
            }
        } catch (IOException | RuntimeException ignored) {
            // the connection closes anyway
        }
    }

    // ------------------------------------------------------------------ reads

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        if (appIn.hasRemaining()) {
            applicationDataRead = true;
            return TlsBufferPool.transfer(appIn, dst);
        }
        if (inboundDone) {
            return -1;
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        while (true) {
            if (netIn.hasRemaining()) {
                int produced;
                SSLEngineResult r;
                if (dst.remaining() >= appSize) {
                    r = unwrapInto(dst);
                    produced = r.bytesProduced();
                } else {
                    r = unwrapInto(appInForWrite());
                    appIn.flip();
                    produced = TlsBufferPool.transfer(appIn, dst);
                }
                switch (r.getStatus()) {
                    case OK:
                        afterPostHandshakeMessage(r);
                        if (produced > 0) {
                            applicationDataRead = true;
                            return produced;
                        }
                        continue; // a record without application data (a ticket, a key update)
                    case CLOSED:
                        // close_notify from the client: answer it if we can, then end of stream.
                        inboundDone = true;
                        closeOutbound();
                        return produced > 0 ? produced : -1;
                    case BUFFER_OVERFLOW:
                        appSize = Math.max(2 * appSize, engine.getSession().getApplicationBufferSize());
                        continue;
                    default:
                        break; // BUFFER_UNDERFLOW: a partial record, read more below
                }
            }
            int n = fill();
            if (n < 0) {
                inboundDone = true;
                return -1;
            }
            if (n == 0) {
                return 0;
            }
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].hasRemaining()) {
                return read(dsts[i]);
            }
        }
        return 0;
    }

    @Override
    public long read(ByteBuffer[] dsts) throws IOException {
        return read(dsts, 0, dsts.length);
    }

    /** A key update or a renegotiation attempt after the handshake: answer it inline, without waiting. */
    private void afterPostHandshakeMessage(SSLEngineResult r) throws IOException {
        HandshakeStatus hs = r.getHandshakeStatus();
        while (hs == HandshakeStatus.NEED_TASK || hs == HandshakeStatus.NEED_WRAP) {
            if (hs == HandshakeStatus.NEED_TASK) {
                runTasks();
            } else {
                if (netOut.hasRemaining() && !flushOnce()) {
                    return; // the reply waits; it leaves with the next write
                }
                wrapInto(EMPTY);
                flushOnce();
            }
            hs = engine.getHandshakeStatus();
        }
    }

    /** One socket read into {@link #netIn}. @return bytes read, -1 at end of stream */
    private int fill() throws IOException {
        if (netIn == NONE) {
            netIn = fromPool(packetSize);
        } else if (netIn.position() == 0 && netIn.limit() == netIn.capacity()) {
            netIn = TlsBufferPool.grown(netIn, Math.max(2 * netIn.capacity(), packetSize)); // a record larger than this
        }
        netIn.compact();
        int room = netIn.remaining();
        int n;
        try {
            n = socket.read(netIn);
        } finally {
            netIn.flip();
        }
        drained = n < room;
        return n;
    }

    private SSLEngineResult unwrapInto(ByteBuffer dst) throws SSLException {
        SSLEngineResult r = engine.unwrap(netIn, dst);
        if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
            runTasks();
        }
        return r;
    }

    /** @return {@link #appIn} in write mode, what it holds kept, with room for one record's plaintext */
    private ByteBuffer appInForWrite() {
        if (appIn == NONE) {
            appIn = fromPool(appSize);
        }
        if (appIn.capacity() - appIn.remaining() < appSize) {
            ByteBuffer bigger = ByteBuffer.allocate(appIn.remaining() + appSize);
            bigger.put(appIn);
            appIn = bigger;
        } else {
            appIn.compact();
        }
        return appIn;
    }

    // ------------------------------------------------------------------ writes

    @Override
    public int write(ByteBuffer src) throws IOException {
        one[0] = src;
        try {
            return (int) write(one, 0, 1);
        } finally {
            one[0] = null;
        }
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    /**
     * Encrypts and sends as much as the kernel takes, one record at a time; the held records leave first.
     *
     * @return the plaintext bytes consumed; their encrypted form may be held here in part ({@link #hasPendingOutput})
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        if (netOut.hasRemaining() && !flushOnce()) {
            return 0;
        }
        long consumed = 0;
        while (TlsBufferPool.anyRemaining(srcs, offset, length)) {
            if (netOut == NONE) {
                netOut = fromPool(packetSize);
            }
            netOut.clear();
            SSLEngineResult r;
            try {
                r = engine.wrap(srcs, offset, length, netOut);
            } finally {
                netOut.flip();
            }
            switch (r.getStatus()) {
                case OK:
                    break;
                case BUFFER_OVERFLOW:
                    netOut = TlsBufferPool.grown(netOut, Math.max(2 * netOut.capacity(), packetSize));
                    continue;
                default:
                    throw new IOException("TLS is closed: " + r.getStatus());
            }
            if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                runTasks();
            }
            consumed += r.bytesConsumed();
            if (r.bytesConsumed() == 0 && r.bytesProduced() == 0) {
                break; // the engine wants to read first (a renegotiation the client started)
            }
            if (!flushOnce()) {
                break; // the rest of this record waits here; the caller keeps the plaintext not consumed
            }
        }
        return consumed;
    }

    private SSLEngineResult wrapInto(ByteBuffer src) throws IOException {
        if (netOut == NONE) {
            netOut = fromPool(packetSize);
        }
        netOut.compact();
        SSLEngineResult r;
        try {
            r = engine.wrap(src, netOut);
        } finally {
            netOut.flip();
        }
        if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
            runTasks();
        }
        return r;
    }

    /** One write of the held records. @return whether none is held any more */
    private boolean flushOnce() throws IOException {
        if (netOut.hasRemaining()) {
            socket.write(netOut);
        }
        return !netOut.hasRemaining();
    }

    @Override
    public boolean hasPendingOutput() {
        return netOut.hasRemaining();
    }

    @Override
    public int flushPendingOutput() throws IOException {
        int before = netOut.remaining();
        if (before == 0 || !open) {
            return 0;
        }
        socket.write(netOut);
        return before - netOut.remaining();
    }

    // ------------------------------------------------------------------ closing

    /**
     * Sends {@code close_notify} if it can leave without waiting: after a complete handshake, with nothing held.
     * Best effort; the socket is closed by the caller.
     */
    public void closeOutbound() {
        if (engine == null || !handshakeDone || engine.isOutboundDone()) {
            return;
        }
        try {
            if (netOut.hasRemaining() && !flushOnce()) {
                return;
            }
            engine.closeOutbound();
            wrapInto(EMPTY);
            flushOnce();
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
    }

    @Override
    public boolean isOpen() {
        return open && socket.isOpen();
    }

    /** Drops what is held and gives the buffers back; does not close the socket (the connection does). */
    @Override
    public void close() {
        open = false;
        pool.give(netIn);
        pool.give(netOut);
        pool.give(appIn);
        netIn = NONE;
        netOut = NONE;
        appIn = NONE;
    }

}
