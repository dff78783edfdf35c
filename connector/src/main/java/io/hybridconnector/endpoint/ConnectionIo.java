package io.hybridconnector.endpoint;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.classify.RequestClassifier.RequestClass;
import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.LoopChannel;
import io.hybridconnector.loop.LoopThread;
import io.hybridconnector.loop.StallDetector;
import io.hybridconnector.tls.TlsChannel;
import io.hybridconnector.write.GatheredOutput;
import io.hybridconnector.write.OutputHold;
import io.hybridconnector.write.ResponseWriter;
import io.hybridconnector.write.Sendfile;
import io.hybridconnector.write.WriteBehindBuffer;
import io.hybridconnector.write.WriteBehindFlusher;
import io.hybridconnector.write.WriteCounters;

import org.apache.coyote.Request;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.ApplicationBufferHandler;
import org.apache.tomcat.util.net.SendfileDataBase;
import org.apache.tomcat.util.net.SendfileState;
import org.apache.tomcat.util.net.SocketBufferHandler;
import org.apache.tomcat.util.net.WriteBuffer;

/**
 * A connection's reads and writes: Tomcat's entry points ({@code read}, {@code writeBlocking}, {@code doWrite},
 * {@code flushBlocking}, ...) onto the connector's write path, and the one place a thread waits for its socket
 * ({@link #awaitSocket}, handing its loop over first).
 * <p>
 * Threads: the thread that holds the connection's lock (its owner: the loop's leader on the fast path); blocking
 * writes and flushes may also come from threads without the lock, counted in {@link #foreignWriters}. Fields marked
 * "lock" are guarded by the connection's lock.
 * <p>
 * Writes. A response that fits the socket buffer leaves in one {@code write()}: headers and small bodies are
 * gathered in the 64 KB direct socket write buffer; a body larger than the room left goes out in one gathering
 * {@code writev} with the buffered headers, without being copied through the buffer. Gathered past what stock NIO
 * would have sent ({@link #STOCK_WRITE_BUFFER}), bytes wait only while the request keeps writing: if it pauses, the
 * stall detector sends them ({@link OutputHold}), and from then on the response leaves as stock's does. What the
 * kernel does not take is handled by the connector's {@link ResponseWriter}: under {@code hybrid} it waits in the
 * connection's {@link WriteBehindBuffer} and the loop flushes it on writability ({@link WriteBehindFlusher}); a
 * writer waits for writability only on its own {@link SocketWaiter}, with the write deadline, handing its loop over
 * first. The write path's classes are in {@code io.hybridconnector.write}; they reach the connection through
 * {@link WriteHooks}.
 */
abstract class ConnectionIo extends TomcatSocketWrapper implements LoopChannel {

    static final Log log = LogFactory.getLog(HybridSocketWrapper.class);

    /** Held by idle connections instead of real buffers: an idle keep-alive connection keeps no buffers. */
    static final SocketBufferHandler NO_BUFFERS = new SocketBufferHandler(0, 0, false);
    /**
     * Tomcat's default {@code socket.appWriteBufSize}: stock NIO writes whenever this much is buffered. Bytes gathered
     * beyond it are held only while the request writes back to back.
     */
    static final int STOCK_WRITE_BUFFER = 8192;

    final HybridEndpoint endpoint;
    final EventLoop loop;
    /**
     * TLS: the layer every read and write of this connection goes through (handshake, records, bytes it holds);
     * {@code null} on a plaintext connection, whose reads and writes go to the socket as before.
     */
    final TlsChannel tls;
    /** Where writes go: the socket, or the TLS layer over it. */
    final GatheringByteChannel out;
    /**
     * Threads inside a blocking write or flush of this connection without its lock: Tomcat's lifecycle thread
     * sending WebSocket close frames at shutdown, HTTP/2 stream threads, application threads. While any is, a close
     * by the owner does not give the socket buffers back to the pool: the writer may still be reading them (it would
     * read a recycled buffer, another connection's). Any thread.
     */
    final AtomicInteger foreignWriters = new AtomicInteger();
    /** Lock: bytes the kernel has not taken yet, flushed by the loop (hybrid strategy). */
    final WriteBehindBuffer behind;
    /** Lock: blocking writes, by the connector's strategy. */
    final ResponseWriter writer;
    /** Takes bytes behind out after a run: its state is the loop leader's. */
    final WriteBehindFlusher flusher;
    final WriteCounters writeCounters;
    /**
     * Lock (the owner's side): when gathered bytes leave; lets the stall detector (or, under thread models that do not
     * hand loops off, the endpoint's output watcher) send those of a request that pauses.
     */
    final GatheredOutput gathering;
    /** Lock: the request being served, for the classifier. */
    Request request;

    /** Lock: the thread running the handler, while it runs. */
    Thread processingThread;

    /** The number of the loop's service that last served this connection. Leader only. */
    private long servedAs;
    /** Leader only ({@code RoundShares}). */
    private boolean ranOverShare;
    /** Lock: interest registered by the handler during the current run, applied when the run ends. */
    int requestedOps;
    /**
     * Lock: {@code false} once a read since the last readiness returned fewer bytes than asked for, which means the
     * socket was drained. A non-blocking read then returns 0 without a syscall; the selector (level-triggered)
     * reports the socket again when bytes arrive. Saves the speculative read that returns EAGAIN after every request.
     */
    boolean readHint = true;
    /**
     * The waiter a thread is waiting on for this socket, if any: a close by another thread wakes it, so that the
     * waiting thread lets go of the connection (and its memory) at once instead of at the deadline.
     */
    volatile SocketWaiter waitingOn;

    /**
     * Lock: the loop held this request until its read timeout passed, its head complete and its body not
     * ({@code RequestReadAhead}): the servlet's next blocking read fails at once, and Tomcat answers as it answers a
     * body read that timed out on stock NIO (400 and a close).
     */
    boolean readTimedOut;

    volatile long lastRead = System.currentTimeMillis();
    volatile long lastWrite = lastRead;

    ConnectionIo(SocketChannel channel, HybridEndpoint endpoint, EventLoop loop) {
        super(channel, endpoint, endpoint.getUnixDomainSocketPath() != null);
        this.endpoint = endpoint;
        this.loop = loop;
        this.socketBufferHandler = NO_BUFFERS;
        this.writeCounters = endpoint.writeCounters();
        this.behind = new WriteBehindBuffer(endpoint.writeBehindAllocator(), endpoint.getWriteBehindLimit(),
                writeCounters);
        this.tls = endpoint.isSSLEnabled() ? endpoint.newTlsChannel(channel) : null;
        this.out = tls == null ? channel : tls;
        behind.setLower(tls);
        WriteHooks hooks = new WriteHooks(this);
        this.writer = new ResponseWriter(out, endpoint.getWriteStrategy(), behind, writeCounters, hooks);
        this.flusher = new WriteBehindFlusher(behind, out, writeCounters, lock, hooks);
        StallDetector watcher = endpoint.outputWatcher();
        this.gathering = new GatheredOutput(watcher == null ? null : watcher::watch,
                Math.min(STOCK_WRITE_BUFFER, endpoint.getSocketProperties().getAppWriteBufSize()),
                endpoint.classifier(), flusher, out, writeCounters, hooks);
    }

    // ------------------------------------------------------------------ what the layer above provides

    /** The loop's flush found the connection held by another thread: suspend it until that thread lets go. */
    abstract void contended();

    /** Lets go of the connection's lock and resumes the connection if the loop found it locked meanwhile. */
    public abstract void unlockAndResume();

    /** The loop's flush sent every byte behind: restore {@code ops}, the interest the run asked for. Leader only. */
    abstract void flushedBehind(int ops);

    // ------------------------------------------------------------------ SocketWrapperBase: reads

    @Override
    public int read(boolean block, byte[] b, int off, int len) throws IOException {
        return read(block, ByteBuffer.wrap(b, off, len));
    }

    @Override
    public int read(boolean block, ByteBuffer to) throws IOException {
        int n = populateReadBuffer(to);
        if (n > 0) {
            return n;
        }
        int wanted = to.remaining();
        if (wanted == 0 || (!block && !readHint && (tls == null || !tls.hasBufferedInput()))) {
            return 0;
        }
        while (true) {
            n = tls == null ? channel.read(to) : tls.read(to);
            if (n > 0) {
                readHint = n == wanted || (tls != null && !tls.socketDrained());
                lastRead = System.currentTimeMillis();
                return n;
            }
            if (n < 0) {
                throw new EOFException();
            }
            readHint = false;
            if (!block) {
                return 0;
            }
            if (readTimedOut) {
                throw new SocketTimeoutException(); // the loop held the request for the whole read timeout already
            }
            awaitSocket(SelectionKey.OP_READ, getReadTimeout());
        }
    }

    /**
     * Takes back bytes a processor read but does not own: what the HTTP/1.1 processor read past an HTTP/2 preface or
     * an upgrade request. Tomcat keeps them in the socket read buffer ({@code socket.appReadBufSize}, 8 KB), which
     * is enough on its endpoints because their reads never return more than that buffer holds. Ours read straight
     * into the caller's buffer (the processor's is 16 KB and more), so what comes back can be larger: then the
     * connection gets a read buffer that holds it, for this run; it is not pooled afterwards.
     */
    @Override
    public void unRead(ByteBuffer returned) {
        if (returned != null && returned.remaining() > unReadRoom()) {
            growReadBuffer(returned.remaining());
        }
        super.unRead(returned);
    }

    private int unReadRoom() {
        socketBufferHandler.configureReadBufferForRead();
        ByteBuffer held = socketBufferHandler.getReadBuffer();
        return held.capacity() - held.remaining();
    }

    /** Lock: moves what the read and write buffers hold into larger ones, with room for {@code more} read bytes. */
    void growReadBuffer(int more) {
        gathering.takeBack();
        SocketBufferHandler old = socketBufferHandler;
        old.configureReadBufferForRead();
        old.configureWriteBufferForRead();
        ByteBuffer heldRead = old.getReadBuffer();
        ByteBuffer heldWrite = old.getWriteBuffer();
        SocketBufferHandler larger = new SocketBufferHandler(heldRead.remaining() + more,
                Math.max(heldWrite.capacity(), 1), heldRead.isDirect());
        larger.configureReadBufferForWrite();
        larger.getReadBuffer().put(heldRead);
        larger.configureWriteBufferForWrite();
        larger.getWriteBuffer().put(heldWrite);
        socketBufferHandler = larger;
        if (old != NO_BUFFERS) {
            endpoint.returnBuffers(old);
        }
    }

    @Override
    public boolean isReadyForRead() throws IOException {
        socketBufferHandler.configureReadBufferForRead();
        if (socketBufferHandler.getReadBuffer().remaining() > 0) {
            return true;
        }
        socketBufferHandler.configureReadBufferForWrite();
        ByteBuffer readBuffer = socketBufferHandler.getReadBuffer();
        int n = tls == null ? channel.read(readBuffer) : tls.read(readBuffer);
        if (n < 0) {
            throw new EOFException();
        }
        if (n > 0) {
            lastRead = System.currentTimeMillis();
        }
        return n > 0;
    }

    @Override
    public void setAppReadBufHandler(ApplicationBufferHandler handler) {
        // Reads go straight into the caller's buffer; under TLS, decrypted bytes that do not fit wait in the TLS layer.
    }

    // ------------------------------------------------------------------ SocketWrapperBase: writes

    /** A blocking write; counted in {@link #foreignWriters} when the caller does not hold the connection's lock. */
    @Override
    protected void writeBlocking(byte[] buf, int off, int len) throws IOException {
        if (lock.isHeldByCurrentThread()) {
            writeBlockingOwned(buf, off, len);
            return;
        }
        foreignWriters.incrementAndGet();
        try {
            writeBlockingOwned(buf, off, len);
        } finally {
            foreignWriters.decrementAndGet();
        }
    }

    private void writeBlockingOwned(byte[] buf, int off, int len) throws IOException {
        gathering.takeBack();
        if (len > writeRoom()) {
            writeWithGathered(ByteBuffer.wrap(buf, off, len));
        } else {
            super.writeBlocking(buf, off, len);
        }
        gathering.afterGathering(gathered());
    }

    /** A blocking write; counted in {@link #foreignWriters} when the caller does not hold the connection's lock. */
    @Override
    protected void writeBlocking(ByteBuffer from) throws IOException {
        if (lock.isHeldByCurrentThread()) {
            writeBlockingOwned(from);
            return;
        }
        foreignWriters.incrementAndGet();
        try {
            writeBlockingOwned(from);
        } finally {
            foreignWriters.decrementAndGet();
        }
    }

    private void writeBlockingOwned(ByteBuffer from) throws IOException {
        gathering.takeBack();
        if (from.remaining() <= writeRoom()) {
            super.writeBlocking(from);
        } else {
            writeWithGathered(from);
        }
        gathering.afterGathering(gathered());
    }

    /**
     * Larger than the room left: the buffered bytes (headers) and the application's buffer leave together, without
     * copying the application's buffer through the socket buffer.
     */
    private void writeWithGathered(ByteBuffer from) throws IOException {
        checkPreviousError();
        socketBufferHandler.configureWriteBufferForRead();
        ByteBuffer head = socketBufferHandler.getWriteBuffer();
        writer.write(head, from, writer.usesRequestClass() ? requestClass() : null);
        socketBufferHandler.configureWriteBufferForWrite();
        wrote();
    }

    /** Lock: bytes in the socket write buffer. */
    private int gathered() {
        socketBufferHandler.configureWriteBufferForWrite();
        return socketBufferHandler.getWriteBuffer().position();
    }

    private int writeRoom() {
        socketBufferHandler.configureWriteBufferForWrite();
        return socketBufferHandler.getWriteBuffer().remaining();
    }

    @Override
    protected void doWrite(boolean block) throws IOException {
        gathering.takeBack();
        super.doWrite(block);
    }

    @Override
    protected void doWrite(boolean block, ByteBuffer from) throws IOException {
        if (block && !from.hasRemaining()) {
            return; // as on NioEndpoint: a flush with nothing to send never touches the socket (closed meanwhile)
        }
        gathering.takeBack();
        checkPreviousError();
        if (block) {
            writer.write(null, from, null);
        } else if (flusher.sendOnce()) {
            // Servlet non-blocking I/O: what the kernel does not take stays in Tomcat's buffers.
            writeCounters.wrote(out.write(from));
        }
        wrote();
    }

    /**
     * Tomcat's HTTP/2 hands each stream to the endpoint's executor from the thread that reads the connection. When
     * that thread leads this connection's loop, the stream runs on it right after the loop's ready connections
     * ({@link EventLoop#defer}) instead of waking a pooled thread per stream; it moves the loop like any request if it
     * blocks. From any other thread, Tomcat's behaviour.
     */
    @Override
    public void execute(Runnable runnable) {
        if (endpoint.isRunning() && LoopThread.currentLoop() == loop) {
            loop.defer(runnable);
        } else {
            super.execute(runnable);
        }
    }

    /** Called by the HTTP/1.1 processor as it starts a request on this connection. Lock. */
    public void serving(Request request) {
        this.request = request;
        gathering.serving();
    }

    @Override
    public long servedAs() {
        return servedAs;
    }

    @Override
    public void servedAs(long service) {
        servedAs = service;
    }

    @Override
    public boolean ranOverShare() {
        return ranOverShare;
    }

    @Override
    public void ranOverShare(boolean over) {
        ranOverShare = over;
    }

    /** The request this connection runs, as a log line names it: method, URI and query, and the client. */
    @Override
    public String describeRun() {
        Request r = request;
        if (r == null) {
            return "a connection from " + getRemoteAddr() + " between requests";
        }
        String query = r.queryString().toString();
        return r.method() + " " + r.requestURI() + (query == null || query.isEmpty() ? "" : "?" + query) +
                " from " + getRemoteAddr();
    }

    /** The class of the response being written, for the classifier: method and path, refined by the query. */
    RequestClass requestClass() {
        Request r = request;
        if (r == null) {
            return null;
        }
        return endpoint.classifier().lookup(r);
    }

    void wrote() {
        lastWrite = System.currentTimeMillis();
    }

    @Override
    public boolean hasDataToWrite() {
        if (lock.isHeldByCurrentThread()) {
            gathering.takeBack();
        }
        return super.hasDataToWrite() || !behind.isEmpty();
    }

    /**
     * A blocking flush by a thread that is not running this connection (HTTP/2 streams write from their own threads):
     * no run of the connection ends after it to hand the bytes left behind to the loop, so they leave now, waiting for
     * writability as a blocking writer does. Under TLS this includes encrypted records the kernel did not take.
     */
    @Override
    protected void flushBlocking() throws IOException {
        gathering.takeBack();
        if (lock.isHeldByCurrentThread()) {
            super.flushBlocking();
            return;
        }
        foreignWriters.incrementAndGet();
        try {
            super.flushBlocking();
            if (!isClosed() && !behind.isEmpty() && processingThread != Thread.currentThread()) {
                flusher.writeAll();
                wrote();
            }
        } finally {
            foreignWriters.decrementAndGet();
        }
    }

    @Override
    protected boolean flushNonBlocking() throws IOException {
        gathering.takeBack();
        checkPreviousError();
        if (!flusher.sendOnce()) {
            return true;
        }
        boolean dataLeft = !socketBufferHandler.isWriteBufferEmpty();
        if (dataLeft) {
            doWrite(false);
            dataLeft = !socketBufferHandler.isWriteBufferEmpty();
        }
        if (!dataLeft && !nonBlockingWriteBuffer.isEmpty()) {
            dataLeft = nonBlockingWriteBuffer.write(nonBlockingSink, false);
            if (!dataLeft && !socketBufferHandler.isWriteBufferEmpty()) {
                doWrite(false);
                dataLeft = !socketBufferHandler.isWriteBufferEmpty();
            }
        }
        return dataLeft;
    }

    @Override
    protected void writeNonBlocking(byte[] buf, int off, int len) throws IOException {
        gathering.takeBack();
        super.writeNonBlocking(buf, off, len);
    }

    @Override
    protected void writeNonBlocking(ByteBuffer from) throws IOException {
        gathering.takeBack();
        super.writeNonBlocking(from);
    }

    /** Drains Tomcat's non-blocking write buffer through the socket write buffer, as its own endpoints do. */
    private final WriteBuffer.Sink nonBlockingSink = (buffer, block) -> {
        if (block) {
            writeBlocking(buffer);
        } else {
            writeNonBlockingInternal(buffer);
        }
        return buffer.hasRemaining();
    };

    void checkPreviousError() throws IOException {
        if (previousIOException != null) {
            // A write that timed out or failed leaves the socket failed: nothing more may be sent on it.
            throw new IOException(previousIOException);
        }
    }

    /**
     * Waits until the socket can be read or written, on this thread, with the deadline. A loop leader first hands
     * its loop to another thread: only now has the request really blocked.
     */
    void awaitWritable() throws IOException {
        writeCounters.writerParked();
        try {
            awaitSocket(SelectionKey.OP_WRITE, getWriteTimeout());
        } finally {
            writeCounters.writerResumed();
        }
    }


    void awaitSocket(int op, long timeoutMillis) throws IOException {
        endpoint.counters().socketWait();
        loop.handOffIfLeader();
        boolean ready;
        boolean write = op == SelectionKey.OP_WRITE;
        SocketWaiter waiter = SocketWaiter.current();
        waitingOn = waiter;
        try {
            ready = waiter.await(channel, op, timeoutMillis);
        } catch (IOException e) {
            previousIOException = e;
            throw e;
        } finally {
            waitingOn = null;
        }
        if (!ready) {
            SocketTimeoutException e = new SocketTimeoutException(
                    (write ? "Write" : "Read") + " timed out after " + timeoutMillis + " ms");
            if (write) {
                // A write that timed out leaves the socket failed: nothing more may be sent on it. A read that timed
                // out does not: Tomcat still answers 400 on the connection, as it does on NioEndpoint.
                previousIOException = e;
                writeCounters.writeTimeout();
            }
            throw e;
        }
    }


    /** The write path's deadline passed or a write failed: the socket stays failed, nothing more may be sent on it. */
    void failWrites(IOException cause) {
        previousIOException = cause;
    }

    SocketBufferHandler buffers() {
        return socketBufferHandler;
    }

    /**
     * Sends a static file on the request's thread ({@link Sendfile}): the response headers leave first (and bytes
     * behind, for {@code sendfile(2)}), then the file. Always completes here, so Tomcat carries on with keep-alive.
     */
    @Override
    public SendfileState processSendfile(SendfileDataBase data) {
        try {
            flush(true);
            if (tls == null) {
                flusher.drain();
            }
            Sendfile.send(writer, data, tls != null);
            return SendfileState.DONE;
        } catch (IOException e) {
            log.debug("sendfile of " + data.fileName + " failed on " + this, e);
            return SendfileState.ERROR;
        }
    }

}
