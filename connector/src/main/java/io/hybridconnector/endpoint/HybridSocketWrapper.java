package io.hybridconnector.endpoint;

import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.LoopChannel;
import io.hybridconnector.loop.LoopThread;
import io.hybridconnector.loop.StallDetector;
import io.hybridconnector.loop.ThreadModel;
import io.hybridconnector.loop.TimeSlicing;
import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.classify.RequestClassifier.RequestClass;
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
import org.apache.tomcat.util.ExceptionUtils;
import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.ApplicationBufferHandler;
import org.apache.tomcat.util.net.SSLSupport;
import org.apache.tomcat.util.net.SSLUtil;
import org.apache.tomcat.util.net.SendfileDataBase;
import org.apache.tomcat.util.net.SendfileState;
import org.apache.tomcat.util.net.SocketBufferHandler;
import org.apache.tomcat.util.net.SocketEvent;
import org.apache.tomcat.util.net.SocketWrapperBase;
import org.apache.tomcat.util.net.WriteBuffer;

/**
 * One HTTP connection: Tomcat's view of the socket (reads, writes, interest registration) and its
 * {@link EventLoop}'s view ({@link LoopChannel}).
 * <p>
 * Threads. Processing runs under the wrapper's lock, normally on the loop's leader (inline, straight from the
 * selector); after a hand-off, on the thread the request blocked; for {@code dispatch=false} calls, on the caller.
 * The selection key and its interest set are written only by the loop's leader: a thread that is not the leader
 * sends its interest changes to the loop as a task. Fields marked "leader only" follow that rule; fields marked
 * "lock" are guarded by the wrapper's lock.
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
 * <p>
 * Asynchronous operations ({@code useAsyncIO}, {@link LoopOperation}): tried on the caller; what the kernel could
 * not do yet is completed by the loop's leader when the socket is ready, reads under the lock, writes without it.
 * <p>
 * Thread models ({@link ThreadModel}): {@code reactor} runs events on a pool worker ({@link #runOnWorker});
 * {@code sync} serves the connection on its own thread ({@link #serveOnOwnThread}); the others run on the loop.
 */
public final class HybridSocketWrapper extends SocketWrapperBase<SocketChannel> implements LoopChannel {

    private static final Log log = LogFactory.getLog(HybridSocketWrapper.class);

    /** Held by idle connections instead of real buffers: an idle keep-alive connection keeps no buffers. */
    private static final SocketBufferHandler NO_BUFFERS = new SocketBufferHandler(0, 0, false);
    /**
     * Tomcat's default {@code socket.appWriteBufSize}: stock NIO writes whenever this much is buffered. Bytes gathered
     * beyond it are held only while the request writes back to back.
     */
    static final int STOCK_WRITE_BUFFER = 8192;

    /**
     * {@code getLock()} returns {@code Lock} on Tomcat 10.1 and {@code ReentrantLock} on 11.0: a direct call compiled
     * against one fails with {@code NoSuchMethodError} on the other. Resolved once by name, so the one jar runs on
     * both; both versions create a {@code ReentrantLock}.
     */
    private static final MethodHandle GET_LOCK;

    static {
        try {
            Method getLock = SocketWrapperBase.class.getMethod("getLock");
            GET_LOCK = MethodHandles.publicLookup().unreflect(getLock)
                    .asType(MethodType.methodType(Object.class, SocketWrapperBase.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static ReentrantLock lockOf(SocketWrapperBase<?> wrapper) {
        try {
            return (ReentrantLock) (Object) GET_LOCK.invokeExact(wrapper);
        } catch (Throwable t) {
            throw new IllegalStateException("SocketWrapperBase.getLock() failed", t);
        }
    }

    private final HybridEndpoint endpoint;
    private final EventLoop loop;
    private final SocketChannel channel;
    /**
     * TLS: the layer every read and write of this connection goes through (handshake, records, bytes it holds);
     * {@code null} on a plaintext connection, whose reads and writes go to the socket as before.
     */
    private final TlsChannel tls;
    /** Where writes go: the socket, or the TLS layer over it. */
    private final GatheringByteChannel out;
    /** TLS: the session's attributes for Tomcat, set when the handshake completes. */
    private volatile SSLSupport sslSupport;
    private final ReentrantLock lock;
    /**
     * Threads inside a blocking write or flush of this connection without its lock: Tomcat's lifecycle thread
     * sending WebSocket close frames at shutdown, HTTP/2 stream threads, application threads. While any is, a close
     * by the owner does not give the socket buffers back to the pool: the writer may still be reading them (it would
     * read a recycled buffer, another connection's). Any thread.
     */
    private final java.util.concurrent.atomic.AtomicInteger foreignWriters = new java.util.concurrent.atomic.AtomicInteger();
    /** Lock: bytes the kernel has not taken yet, flushed by the loop (hybrid strategy). */
    private final WriteBehindBuffer behind;
    /** Lock: blocking writes, by the connector's strategy. */
    private final ResponseWriter writer;
    /** Takes bytes behind out after a run: its state is the loop leader's. */
    private final WriteBehindFlusher flusher;
    private final WriteCounters writeCounters;
    private final ThreadModel model;
    /** Whether to serve on a pool thread for now because requests compute beside the loops. */
    private final TimeSlicing timeSlicing;
    /** The operator gave an executor ({@code executor}, {@code useVirtualThreads}): requests that block run there. */
    private final boolean executorForBlocking;
    /**
     * With {@link #executorForBlocking}: the previous request left its loop (it blocked, or its class is known to), so
     * the next one starts on the executor. Written at the end of a run under the lock, read by the leader when the
     * connection is ready again (after that run gave the connection back); a stale read costs one misplaced run.
     */
    private boolean lastRunLeftLoop;
    /**
     * Lock (the owner's side): when gathered bytes leave; lets the stall detector (or, under thread models that do not
     * hand loops off, the endpoint's output watcher) send those of a request that pauses.
     */
    private final GatheredOutput gathering;
    /** Lock: the request being served, for the classifier. */
    private Request request;

    /** Leader only. */
    private SelectionKey key;
    /** Leader only: the operations the key is armed for. */
    private int interestOps;
    /** Leader only: interest taken away while another thread held the connection. */
    private int suspendedOps;
    /** Leader only: events dispatched to the loop while another thread held the connection. */
    private final ArrayDeque<SocketEvent> pendingEvents = new ArrayDeque<>(2);

    /** Lock: the thread running the handler, while it runs. */
    private Thread processingThread;
    /** Lock: interest registered by the handler during the current run, applied when the run ends. */
    private int requestedOps;
    /**
     * Lock: {@code false} once a read since the last readiness returned fewer bytes than asked for, which means the
     * socket was drained. A non-blocking read then returns 0 without a syscall; the selector (level-triggered)
     * reports the socket again when bytes arrive. Saves the speculative read that returns EAGAIN after every request.
     */
    private boolean readHint = true;
    /**
     * The waiter a thread is waiting on for this socket, if any: a close by another thread wakes it, so that the
     * waiting thread lets go of the connection (and its memory) at once instead of at the deadline.
     */
    private volatile SocketWaiter waitingOn;
    /** Closed while another thread held the lock: the pooled memory goes back when the connection is free. */
    private volatile boolean releasePending;
    /** Set by the loop when it found the connection locked; the holder resumes it when it lets go. */
    private volatile boolean contended;

    private volatile long lastRead = System.currentTimeMillis();
    private volatile long lastWrite = lastRead;
    /** Between requests on a keep-alive connection, with nothing buffered: may be evicted or closed on drain. */
    private volatile boolean idle;

    HybridSocketWrapper(SocketChannel channel, HybridEndpoint endpoint, EventLoop loop) {
        super(channel, endpoint);
        this.endpoint = endpoint;
        this.loop = loop;
        this.channel = channel;
        this.lock = lockOf(this);
        this.socketBufferHandler = NO_BUFFERS;
        this.writeCounters = endpoint.writeCounters();
        this.model = endpoint.getThreadModel();
        this.timeSlicing = endpoint.timeSlicing();
        this.executorForBlocking = endpoint.hasTaskExecutor() && model.handsOff();
        this.behind = new WriteBehindBuffer(endpoint.writeBehindAllocator(), endpoint.getWriteBehindLimit(),
                writeCounters);
        this.tls = endpoint.isSSLEnabled() ? endpoint.newTlsChannel(channel) : null;
        this.out = tls == null ? channel : tls;
        behind.setLower(tls);
        WriteHooks hooks = new WriteHooks();
        this.writer = new ResponseWriter(out, endpoint.getWriteStrategy(), behind, writeCounters, hooks);
        this.flusher = new WriteBehindFlusher(behind, out, writeCounters, lock, hooks);
        StallDetector watcher = endpoint.outputWatcher();
        this.gathering = new GatheredOutput(watcher == null ? null : watcher::watch,
                Math.min(STOCK_WRITE_BUFFER, endpoint.getSocketProperties().getAppWriteBufSize()),
                endpoint.classifier(), flusher, out, writeCounters, hooks);
        if (endpoint.getUnixDomainSocketPath() != null) {
            // A Unix socket has no IP addresses: present the local host, as Tomcat's NIO connector does (10.1.59
            // NioSocketWrapper's constructor; see "addresses" below).
            localAddr = "127.0.0.1";
            localName = "localhost";
            localPort = 0;
            remoteAddr = "127.0.0.1";
            remoteHost = "localhost";
            remotePort = 0;
        }
    }

    EventLoop loop() {
        return loop;
    }

    boolean isIdle() {
        return idle;
    }

    long getLastRead() {
        return lastRead;
    }

    // ------------------------------------------------------------------ loop side (leader only)

    /** Registers with the loop's selector for the first request. Leader only. */
    boolean registerWithLoop() {
        try {
            key = loop.register(channel, SelectionKey.OP_READ, this);
            interestOps = SelectionKey.OP_READ;
            return true;
        } catch (IOException | RuntimeException e) {
            log.debug("Registration failed", e);
            close();
            return false;
        }
    }

    @Override
    public boolean onReady(int readyOps) {
        int consumed = readyOps & interestOps;
        if (consumed == 0) {
            return true;
        }
        if ((consumed & SelectionKey.OP_WRITE) != 0) {
            if (flusher.isFlushing()) {
                flusher.onWritable();
                return true;
            }
            if (writeOperation != null) {
                // useAsyncIO: the write operation waiting for the socket completes here, then a waiting read.
                boolean leading = runWriteOperationFromLoop();
                if (!leading || (consumed & SelectionKey.OP_READ) == 0 || isClosed()) {
                    return leading;
                }
            } else {
                // Write first, as Tomcat's NIO does; a pending read is reported again on the next select.
                return runFromLoop(SocketEvent.OPEN_WRITE, SelectionKey.OP_WRITE);
            }
        }
        if (isWaiting(readOperation)) {
            return runReadOperationFromLoop();
        }
        return runFromLoop(SocketEvent.OPEN_READ, SelectionKey.OP_READ);
    }

    @Override
    public boolean checkTimeout(long now) {
        if (isClosed()) {
            return true;
        }
        int op;
        if (flusher.isPastDeadline(now, lastWrite, getWriteTimeout())) {
            flusher.timeOut(getWriteTimeout());
            return true;
        } else if (isWaiting(writeOperation) && timedOut(now, lastWrite, getWriteTimeout())) {
            return failOperationOnTimeout(false);
        } else if (isWaiting(readOperation) && timedOut(now, lastRead, getReadTimeout())) {
            return failOperationOnTimeout(true);
        } else if ((interestOps & SelectionKey.OP_WRITE) != 0 && timedOut(now, lastWrite, getWriteTimeout())) {
            op = SelectionKey.OP_WRITE;
        } else if ((interestOps & SelectionKey.OP_READ) != 0 && timedOut(now, lastRead, getReadTimeout())) {
            op = SelectionKey.OP_READ;
        } else {
            return true;
        }
        setError(new SocketTimeoutException());
        return runFromLoop(SocketEvent.ERROR, op);
    }

    private static boolean timedOut(long now, long last, long timeout) {
        return timeout > 0 && now - last > timeout;
    }

    /** Runs a dispatched event (async completion, timeout, ...). Leader only. */
    boolean onDispatch(SocketEvent event) {
        if (isClosed()) {
            return true;
        }
        if (model == ThreadModel.REACTOR) {
            endpoint.runOnWorker(() -> runOnWorker(event, 0));
            return true;
        }
        if (model == ThreadModel.SYNC) {
            endpoint.runOnWorker(() -> serveOnOwnThread(event));
            return true;
        }
        if (!lock.tryLock()) {
            pendingEvents.addLast(event);
            markContended();
            return true;
        }
        return runLockedOnLoop(event, 0);
    }

    private boolean runFromLoop(SocketEvent event, int consumed) {
        if (model == ThreadModel.REACTOR || timeSlicing.isOn() || (executorForBlocking && lastRunLeftLoop)) {
            // Like stock NIO, a poller hands each request to a worker: always under the reactor model, while
            // requests compute beside the loops (TimeSlicing), and, when the operator gave an executor, for a
            // connection whose last request blocked. The worker owns the connection until it gives it back
            // (applyInterest).
            if (model != ThreadModel.REACTOR) {
                if (timeSlicing.isOn()) {
                    loop.getCounters().timeSlicedRun();
                } else {
                    loop.getCounters().executorRun();
                }
            }
            suspendInterest();
            endpoint.runOnWorker(() -> runOnWorker(event, consumed));
            return true;
        }
        if (!lock.tryLock()) {
            suspendInterest();
            markContended();
            return true;
        }
        if ((consumed & SelectionKey.OP_READ) != 0) {
            readHint = true;
        }
        return runLockedOnLoop(event, consumed);
    }

    /** A reactor's worker: runs the event, then hands the connection back to the loop (a task and a wake-up). */
    private void runOnWorker(SocketEvent event, int consumed) {
        lock.lock();
        try {
            if (isClosed()) {
                return;
            }
            if ((consumed & SelectionKey.OP_READ) != 0) {
                readHint = true;
            }
            long start = executorForBlocking ? System.nanoTime() : 0;
            SocketState state = process(event);
            if (executorForBlocking) {
                // Still long (it waited or computed for half the budget): the next request starts here too.
                lastRunLeftLoop = System.nanoTime() - start >= loop.handOffBudgetNanos() / 2;
            }
            afterRun(state, consumed, false);
        } finally {
            unlockAndResume();
        }
    }

    /**
     * One thread per connection, like Tomcat 7's blocking connector (BIO): the connection's own thread serves request
     * after request and waits on the connection itself for the next one, with the keep-alive timeout (the connection timeout when keep-alive is infinite, as BIO's
     * default was). Returns when the connection closes or a request goes asynchronous (its dispatch comes back here).
     */
    void serveOnOwnThread() {
        serveOnOwnThread(SocketEvent.OPEN_READ);
    }

    private void serveOnOwnThread(SocketEvent first) {
        lock.lock();
        try {
            SocketEvent event = first;
            while (!isClosed()) {
                readHint = true;
                SocketState state = process(event);
                if (isClosed()) {
                    return;
                }
                int op;
                if (state == SocketState.OPEN) {
                    op = SelectionKey.OP_READ; // the next request
                } else if (state == SocketState.LONG && requestedOps != 0) {
                    // Servlet non-blocking I/O: the listener waits for the socket, so this thread does.
                    op = (requestedOps & SelectionKey.OP_WRITE) != 0 ? SelectionKey.OP_WRITE : SelectionKey.OP_READ;
                } else {
                    return; // asynchronous: the dispatch that ends it comes back through onDispatch
                }
                if (!behind.isEmpty()) {
                    flusher.drain();
                }
                long timeout = op == SelectionKey.OP_WRITE ? getWriteTimeout() :
                        getReadTimeout() > 0 ? getReadTimeout() : endpoint.getConnectionTimeout();
                try {
                    awaitSocket(op, timeout);
                } catch (IOException e) {
                    close();
                    return;
                }
                event = op == SelectionKey.OP_WRITE ? SocketEvent.OPEN_WRITE : SocketEvent.OPEN_READ;
            }
        } finally {
            unlockAndResume();
        }
    }

    /** Runs the handler inline on the leader; the lock is held on entry and released here. */
    private boolean runLockedOnLoop(SocketEvent event, int consumed) {
        boolean leading;
        try {
            long seq = loop.beginRun(this);
            SocketState state = process(event);
            leading = loop.endRun(seq);
            if (executorForBlocking) {
                lastRunLeftLoop = !leading;
            }
            afterRun(state, consumed, leading);
        } finally {
            unlockAndResume();
        }
        return leading;
    }

    @Override
    public void suspendInterest() {
        suspendedOps |= interestOps;
        setInterest(0);
    }

    private void markContended() {
        contended = true;
        // Re-check after publishing the flag: the holder may have let go in between and missed it.
        if (!lock.isLocked()) {
            contended = false;
            loop.submit(this::resume);
        } else {
            loop.retryWhenFree(this);
        }
    }

    @Override
    public boolean resumeIfFree() {
        if (releasePending) {
            return releaseIfFree();
        }
        if (lock.isLocked()) {
            return false;
        }
        contended = false;
        loop.submit(this::resume);
        return true;
    }

    /** Closed while another thread held the connection: gives its memory back once free. Leader only. */
    private boolean releaseIfFree() {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (releasePending) {
                releaseMemory();
            }
        } finally {
            lock.unlock();
        }
        return true;
    }

    /** Restores suspended interest and runs events that waited for the lock. Leader only. */
    private boolean resume() {
        if (isClosed()) {
            return true;
        }
        if (suspendedOps != 0) {
            setInterest(interestOps | suspendedOps);
            suspendedOps = 0;
        }
        SocketEvent event;
        while ((event = pendingEvents.pollFirst()) != null) {
            if (!onDispatch(event)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Leader only. With bytes left behind, the connection waits for writability alone: the loop flushes them, and
     * only then restores the interest the run asked for ({@link WriteBehindFlusher}).
     */
    private void applyInterest(int consumed, int requested, boolean bytesBehind) {
        if (isClosed()) {
            return;
        }
        int ops = ((interestOps | suspendedOps) & ~consumed) | requested | waitingOps();
        suspendedOps = 0;
        setInterest(flusher.interestAfterRun(ops, requested, bytesBehind));
    }

    /** Leader only. Touches the kernel only when the interest set really changes. */
    private void setInterest(int ops) {
        if (ops != interestOps && key != null && key.isValid()) {
            key.interestOps(ops);
            interestOps = ops;
        }
    }

    /** Interest registered outside a run (Servlet non-blocking I/O from an application thread). Any thread. */
    private void addInterestFromAnyThread(int op) {
        if (loop.inLoop()) {
            setInterest(interestOps | op);
        } else {
            loop.submit(() -> {
                setInterest(interestOps | op);
                return true;
            });
        }
    }

    /** Closes the connection if it is still idle (eviction at maxConnections, graceful stop). Leader only. */
    void closeIfIdle() {
        if (idle && lock.tryLock()) {
            try {
                if (idle) {
                    close();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public void closeOnStop() {
        close();
    }

    // ------------------------------------------------------------------ processing (lock held)

    /**
     * Runs an event on the calling thread, which is not the loop's leader (a {@code dispatch=false} call from an
     * application or container thread). Blocks on the lock, as Tomcat's socket processors do.
     */
    void runOnCaller(SocketEvent event) {
        lock.lock();
        try {
            if (isClosed()) {
                return;
            }
            SocketState state = process(event);
            afterRun(state, 0, loop.inLoop());
        } finally {
            unlockAndResume();
        }
    }

    private void unlockAndResume() {
        if (releasePending && lock.getHoldCount() == 1) {
            releaseMemory(); // closed by another thread while this one held the connection
        }
        lock.unlock();
        if (contended && !lock.isLocked()) {
            contended = false;
            loop.submit(this::resume);
        }
    }

    private SocketState process(SocketEvent event) {
        Thread previous = processingThread;
        processingThread = Thread.currentThread();
        requestedOps = 0;
        idle = false;
        if (socketBufferHandler == NO_BUFFERS) {
            socketBufferHandler = endpoint.takeBuffers();
        }
        SocketState state = SocketState.CLOSED;
        try {
            if (tls != null && !tls.isHandshakeDone()) {
                SocketState waiting = handshake(event);
                if (waiting != null) {
                    if (waiting == SocketState.CLOSED) {
                        close();
                    }
                    return waiting;
                }
                event = SocketEvent.OPEN_READ; // the request may have come with the client's last handshake bytes
            }
            state = endpoint.getHandler().process(this, event);
            if (state == SocketState.CLOSED) {
                close();
            }
        } catch (Throwable t) {
            ExceptionUtils.handleThrowable(t);
            log.error("Error processing connection " + this, t);
            close();
        } finally {
            gathering.takeBack();
            processingThread = previous;
        }
        return state;
    }

    /**
     * TLS: moves the handshake on, on the thread that owns the connection now (normally the loop's leader that found
     * it readable), without waiting: delegated tasks run inline; if the handshake needs bytes from the client the
     * connection goes back to its loop armed for reading, if the kernel did not take the handshake bytes, for writing
     * (they count as bytes behind, so the loop flushes them first). Lock held.
     *
     * @return {@code null} once the handshake is complete, otherwise the state to leave the connection in
     */
    private SocketState handshake(SocketEvent event) {
        if (event != SocketEvent.OPEN_READ && event != SocketEvent.OPEN_WRITE) {
            return SocketState.CLOSED; // a timeout, an error or a stop during the handshake
        }
        int ops;
        try {
            ops = tls.handshake();
        } catch (IOException | RuntimeException e) {
            if (log.isDebugEnabled()) {
                log.debug("TLS handshake failed on " + this, e);
            }
            return SocketState.CLOSED;
        }
        lastRead = System.currentTimeMillis();
        if (ops == 0) {
            setSniHostName(tls.sniHostName());
            if (endpoint.hasNegotiableProtocols()) {
                // ALPN: "h2" hands the connection to Tomcat's HTTP/2 code. OpenSSL engines report it their own way.
                javax.net.ssl.SSLEngine engine = tls.engine();
                setNegotiatedProtocol(engine instanceof SSLUtil.ProtocolInfo ?
                        ((SSLUtil.ProtocolInfo) engine).getNegotiatedProtocol() : engine.getApplicationProtocol());
            }
            Map<String,List<String>> requested = new HashMap<>(4);
            requested.put(SSLSupport.REQUESTED_PROTOCOL_VERSIONS_KEY, tls.clientProtocols());
            requested.put(SSLSupport.REQUESTED_CIPHERS_KEY, tls.clientCipherNames());
            sslSupport = endpoint.getSslImplementation().getSSLSupport(tls.engine().getSession(), requested);
            return null;
        }
        requestedOps |= ops;
        // Waiting for the client keeps no buffers (OPEN); waiting for the kernel keeps them (LONG): it is brief.
        return ops == SelectionKey.OP_WRITE ? SocketState.LONG : SocketState.OPEN;
    }

    private void afterRun(SocketState state, int consumed, boolean leading) {
        if (isClosed()) {
            return;
        }
        int requested = requestedOps;
        boolean bytesBehind = !behind.isEmpty();
        if (state == SocketState.OPEN && socketBufferHandler.isReadBufferEmpty() &&
                socketBufferHandler.isWriteBufferEmpty() && nonBlockingWriteBuffer.isEmpty()) {
            // Keep-alive, between requests: hold no buffers while waiting for the next one.
            endpoint.returnBuffers(socketBufferHandler);
            socketBufferHandler = NO_BUFFERS;
            idle = !bytesBehind;
            if (idle) {
                endpoint.connectionIdle(); // one volatile read, unless the acceptor waits at maxConnections
            }
            if (tls != null) {
                tls.releaseBuffers(); // those that hold nothing: an idle TLS connection holds no buffers either
            }
        }
        if (bytesBehind) {
            wrote(); // the write deadline for the bytes left behind starts now
        }
        if (leading) {
            applyInterest(consumed, requested, bytesBehind);
        } else {
            loop.submit(() -> {
                applyInterest(consumed, requested, bytesBehind);
                return true;
            });
        }
    }

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
    private void growReadBuffer(int more) {
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

    /** The class of the response being written, for the classifier: method and path. */
    private RequestClass requestClass() {
        Request r = request;
        if (r == null) {
            return null;
        }
        return endpoint.classifier().lookup(RequestClassifier.keyOf(r));
    }

    private void wrote() {
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

    private void checkPreviousError() throws IOException {
        if (previousIOException != null) {
            // A write that timed out or failed leaves the socket failed: nothing more may be sent on it.
            throw new IOException(previousIOException);
        }
    }

    /**
     * Waits until the socket can be read or written, on this thread, with the deadline. A loop leader first hands
     * its loop to another thread: only now has the request really blocked.
     */
    private void awaitWritable() throws IOException {
        writeCounters.writerParked();
        try {
            awaitSocket(SelectionKey.OP_WRITE, getWriteTimeout());
        } finally {
            writeCounters.writerResumed();
        }
    }

    /**
     * The write path's view of the connection ({@code write/}): waiting for writability, the write deadline of a writer
     * that does not wait, what the loop's flush of bytes behind needs (the lock's contention, interest, failure), and
     * what the pacing of gathered bytes needs (the buffers, the running thread, the response's class).
     */
    private final class WriteHooks implements ResponseWriter.Waiter, WriteBehindFlusher.Connection,
            GatheredOutput.Owner {
        @Override
        public void awaitWritable() throws IOException {
            HybridSocketWrapper.this.awaitWritable();
        }

        @Override
        public void checkStalled(long stalledSinceNanos) throws IOException {
            long timeout = getWriteTimeout();
            if (timeout > 0 && System.nanoTime() - stalledSinceNanos > TimeUnit.MILLISECONDS.toNanos(timeout)) {
                writeCounters.writeTimeout();
                // As for a writer that waited: the socket stays failed, nothing more may be sent on it.
                SocketTimeoutException e = new SocketTimeoutException("Write timed out after " + timeout +
                        " ms without progress");
                previousIOException = e;
                throw e;
            }
        }

        @Override
        public void contended() {
            suspendInterest();
            markContended();
        }

        @Override
        public void unlockAndResume() {
            HybridSocketWrapper.this.unlockAndResume();
        }

        @Override
        public void wrote() {
            HybridSocketWrapper.this.wrote();
        }

        @Override
        public void flushed(int ops) {
            if (!endpoint.isRunning() || endpoint.isPaused()) {
                close(); // graceful stop: the last response has left, the connection is not reused
                return;
            }
            idle = socketBufferHandler == NO_BUFFERS;
            if (idle) {
                endpoint.connectionIdle();
            }
            if (idle && tls != null) {
                tls.releaseBuffers();
            }
            setInterest(ops | waitingOps());
        }

        @Override
        public void failed(IOException cause) {
            previousIOException = cause;
            close();
        }

        @Override
        public SocketBufferHandler buffers() {
            return socketBufferHandler;
        }

        @Override
        public boolean runsConnection() {
            return processingThread == Thread.currentThread();
        }

        @Override
        public RequestClass requestClass() {
            return HybridSocketWrapper.this.requestClass();
        }

        @Override
        public void writeGathered() throws IOException {
            doWrite(true);
        }

        @Override
        public String toString() {
            return HybridSocketWrapper.this.toString();
        }
    }

    private void awaitSocket(int op, long timeoutMillis) throws IOException {
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

    // ------------------------------------------------------------------ SocketWrapperBase: interest

    @Override
    public void registerReadInterest() {
        registerInterest(SelectionKey.OP_READ);
    }

    @Override
    public void registerWriteInterest() {
        registerInterest(SelectionKey.OP_WRITE);
    }

    private void registerInterest(int op) {
        if (processingThread == Thread.currentThread()) {
            // Inside a run on this thread: applied when the run ends (on the fast path, by doing nothing).
            requestedOps |= op;
        } else {
            addInterestFromAnyThread(op);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    protected void doClose() {
        if (lock.isHeldByCurrentThread()) {
            gathering.takeBack();
        }
        if (!behind.isEmpty() && previousIOException == null && getError() == null && endpoint.isRunning() &&
                lock.isHeldByCurrentThread()) {
            // Connection: close after a response that is still leaving: send the rest before closing.
            flusher.drain();
        }
        endpoint.connectionClosed(this);
        boolean locked = lock.tryLock();
        if (tls != null && locked && previousIOException == null && getError() == null) {
            tls.closeOutbound(); // close_notify, if it can leave without waiting
        }
        try {
            if (key != null) {
                key.cancel();
            }
            channel.close();
        } catch (IOException e) {
            log.debug("Close failed", e);
        }
        if (!loop.inLoop()) {
            // A registered channel's descriptor is released at the selector's next select.
            loop.wakeup();
        }
        SocketWaiter waiter = waitingOn;
        if (waiter != null) {
            waiter.wakeup(); // the thread waiting for this socket (holding the connection) sees the close now
        }
        behind.close(); // any thread: released now, or by the write using it as that write ends
        if (locked) {
            try {
                releaseMemory();
            } finally {
                lock.unlock();
            }
        } else {
            // Another thread holds the connection (a request waiting for its socket, which this close wakes, an
            // HTTP/2 stream writing): it may be using the socket and TLS buffers, so it gives them back as it lets go
            // (unlockAndResume); the loop tries too, in case that thread was Tomcat's, whose unlock we do not see.
            releasePending = true;
            loop.submit(() -> {
                loop.retryWhenFree(this);
                return true;
            });
        }
    }

    /**
     * Gives back the pooled socket and TLS record buffers the connection holds (issue 16: only a close that found the
     * lock free did, so a close while another thread held the connection left them out of the pools for good);
     * write-behind memory was released by {@link #doClose} already ({@link WriteBehindBuffer#close}, any thread).
     * Lock held, connection closed.
     */
    private void releaseMemory() {
        releasePending = false;
        SocketBufferHandler buffers = socketBufferHandler;
        socketBufferHandler = NO_BUFFERS; // first: a writer that starts now sees no buffers
        if (foreignWriters.get() == 0) {
            if (tls != null) {
                tls.close();
            }
            if (buffers != NO_BUFFERS) {
                endpoint.returnBuffers(buffers);
            }
        } // else a writer without the lock (a WebSocket close at shutdown) may still use them: pooling them now could
          // hand them to another connection mid-write; the garbage collector takes them instead
    }

    // ------------------------------------------------------------------ addresses
    // Follows Tomcat 10.1.59 org/apache/tomcat/util/net/NioEndpoint.java, NioSocketWrapper.populateRemoteHost,
    // populateRemoteAddr, populateRemotePort, populateLocalName, populateLocalAddr, populateLocalPort (and, in the
    // constructor, its Unix-socket "127.0.0.1"/"localhost"/port 0 values); Tomcat 11.0.25 is the same. Re-synced
    // 2026-11-25. Differs on purpose: no null check of the channel (ours is final and never null, Tomcat's NioChannel
    // is recycled).

    @Override
    protected void populateRemoteHost() {
        InetAddress a = channel.socket().getInetAddress();
        if (a != null) {
            remoteHost = a.getHostName();
            if (remoteAddr == null) {
                remoteAddr = a.getHostAddress();
            }
        }
    }

    @Override
    protected void populateRemoteAddr() {
        InetAddress a = channel.socket().getInetAddress();
        if (a != null) {
            remoteAddr = a.getHostAddress();
        }
    }

    @Override
    protected void populateRemotePort() {
        remotePort = channel.socket().getPort();
    }

    @Override
    protected void populateLocalName() {
        InetAddress a = channel.socket().getLocalAddress();
        if (a != null) {
            localName = a.getHostName();
        }
    }

    @Override
    protected void populateLocalAddr() {
        InetAddress a = channel.socket().getLocalAddress();
        if (a != null) {
            localAddr = a.getHostAddress();
        }
    }

    @Override
    protected void populateLocalPort() {
        localPort = channel.socket().getLocalPort();
    }

    // ------------------------------------------------------------------ not offered by this endpoint

    // ------------------------------------------------------------------ sendfile

    @Override
    public SendfileDataBase createSendfileData(String filename, long pos, long length) {
        return new SendfileData(filename, pos, length);
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

    /** What Tomcat's sendfile support needs to know of one file; nothing more for a same-thread transfer. */
    private static final class SendfileData extends SendfileDataBase {
        SendfileData(String filename, long pos, long length) {
            super(filename, pos, length);
        }
    }

    @Override
    public void doClientAuth(SSLSupport sslSupport) {
        // Renegotiating to ask for a client certificate late (TLS 1.2 only) is not offered: configure
        // certificateVerification="optional" or "required" on the SSLHostConfig, and the certificate is asked for in
        // the handshake.
    }

    /** @return the TLS session's attributes (cipher suite, client certificates, ...) once the handshake is done */
    @Override
    public SSLSupport getSslSupport() {
        return sslSupport;
    }

    // ------------------------------------------------------------------ asynchronous operations (useAsyncIO)

    /**
     * Tomcat's asynchronous socket operations ({@code read/write(..., CompletionHandler)}, used by HTTP/2 and
     * WebSocket when {@code useAsyncIO="true"}, and by internal upgrade handlers). The caller tries at once; what the
     * kernel cannot do yet waits for the loop, which completes it on its leader when it finds the socket ready. A
     * {@code BLOCK} operation waits on its caller's own {@link SocketWaiter} instead, as every blocking read or write of
     * this connector does.
     */
    @Override
    protected <A> OperationState<A> newOperationState(boolean read, ByteBuffer[] buffers, int offset, int length,
            BlockingMode block, long timeout, TimeUnit unit, A attachment, CompletionCheck check,
            CompletionHandler<Long,? super A> handler, Semaphore semaphore, VectoredIOCompletionHandler<A> completion) {
        return new LoopOperation<>(read, buffers, offset, length, block, timeout, unit, attachment, check, handler,
                semaphore, completion);
    }

    /** @return the interest that operations waiting for the loop need kept armed. Any thread (volatile reads). */
    private int waitingOps() {
        return (isWaiting(readOperation) ? SelectionKey.OP_READ : 0) |
                (isWaiting(writeOperation) ? SelectionKey.OP_WRITE : 0);
    }

    private static boolean isWaiting(OperationState<?> op) {
        return op instanceof LoopOperation && ((LoopOperation<?>) op).waiting;
    }

    /**
     * The loop found the socket writable for a write operation: completes it on the leader. Writes take no connection
     * lock (as on Tomcat's NIO, writes may come from stream threads while the connection's thread reads), so a
     * connection held by a thread that waits for this very write cannot stall it. Leader only.
     */
    private boolean runWriteOperationFromLoop() {
        OperationState<?> op = writeOperation;
        // Consumed: the operation arms the key again if the kernel still takes nothing.
        setInterest(interestOps & ~SelectionKey.OP_WRITE);
        if (!isWaiting(op)) {
            return true;
        }
        long seq = loop.beginRun(this);
        runOperation(op);
        return loop.endRun(seq);
    }

    /**
     * The loop found the socket readable for a read operation: completes it on the leader under the connection's
     * lock (its completion handler goes on with the connection, e.g. HTTP/2's frame parsing); the key stays armed
     * for reading, so a read that completes and is followed by the next (HTTP/2's parser) costs no interest change.
     * Leader only.
     */
    private boolean runReadOperationFromLoop() {
        if (!lock.tryLock()) {
            suspendInterest();
            markContended();
            return true;
        }
        boolean leading;
        try {
            long seq = loop.beginRun(this);
            Thread previous = processingThread;
            processingThread = Thread.currentThread();
            requestedOps = 0;
            try {
                runOperation(readOperation);
            } finally {
                processingThread = previous;
            }
            leading = loop.endRun(seq);
            int requested = requestedOps;
            boolean bytesBehind = !behind.isEmpty();
            if (leading) {
                applyInterest(0, requested, bytesBehind);
            } else {
                loop.submit(() -> {
                    applyInterest(0, requested, bytesBehind);
                    return true;
                });
            }
        } finally {
            unlockAndResume();
        }
        return leading;
    }

    private void runOperation(OperationState<?> op) {
        if (op == null) {
            return;
        }
        try {
            op.run();
        } catch (Throwable t) {
            ExceptionUtils.handleThrowable(t);
            log.error("Error completing an asynchronous operation on " + this, t);
            close();
        }
    }

    /** A read or write operation that timed out while it waited for the loop: it fails with the timeout. Leader. */
    private boolean failOperationOnTimeout(boolean read) {
        if (!read) {
            writeCounters.writeTimeout();
        }
        setError(new SocketTimeoutException((read ? "Read" : "Write") + " timed out"));
        return read ? runReadOperationFromLoop() : runWriteOperationFromLoop();
    }

    /**
     * Arms the key for an operation that waits for the loop: directly when the caller leads the loop, otherwise as a
     * task. Any thread.
     */
    private void armForOperation(int op) {
        if (loop.inLoop()) {
            // A run in progress keeps it at its end too: applyInterest adds waitingOps().
            setInterest(interestOps | op);
            if (loop.inLoop()) {
                return;
            }
            // The loop was handed to another thread meanwhile: its leader sets the key again, from what it knows.
        }
        loop.submit(() -> {
            int ops = interestOps | op;
            if (key != null && key.isValid()) {
                key.interestOps(ops);
                interestOps = ops;
            }
            return true;
        });
    }

    /**
     * One asynchronous read or write. Runs on its caller first, then, if the kernel could not do it, on the loop's
     * leader when the socket is ready ({@link #onReady}); a {@code BLOCK} operation waits on its caller's thread.
     * Calls on one operation are serialised as on Tomcat's NIO: a second notification while one is processed is
     * dropped ({@code completionDone}).
     * <p>
     * Follows Tomcat 10.1.59 {@code org/apache/tomcat/util/net/NioEndpoint.java}, {@code NioSocketWrapper.NioOperationState}
     * ({@code run}: the {@code completionDone} serialisation, bytes a processor handed back read first, the
     * completion check and handler call of {@code SocketWrapperBase.OperationState}); Tomcat 11.0.25 is the same.
     * Differs on purpose: a socket that is not ready is armed with the connection's loop (Tomcat: its poller), and
     * the completion runs on the loop's leader inline (Tomcat: an executor thread); {@code BLOCK} waits on the
     * caller's {@link SocketWaiter}.
     */
    private final class LoopOperation<A> extends OperationState<A> {

        /** Cleared once the operation has waited for the socket: its completion is then not inline. */
        private volatile boolean inline = true;
        /** Armed with the loop and waiting for readiness. Any thread (volatile): set by the runner, read by the loop. */
        volatile boolean waiting;

        private LoopOperation(boolean read, ByteBuffer[] buffers, int offset, int length, BlockingMode block,
                long timeout, TimeUnit unit, A attachment, CompletionCheck check,
                CompletionHandler<Long,? super A> handler, Semaphore semaphore,
                VectoredIOCompletionHandler<A> completion) {
            super(read, buffers, offset, length, block, timeout, unit, attachment, check, handler, semaphore,
                    completion);
        }

        @Override
        protected boolean isInline() {
            return inline;
        }

        /** Under TLS, records the kernel did not take yet; bytes an HTTP/1.1 response left behind. */
        @Override
        protected boolean hasOutboundRemaining() {
            synchronized (behind) {
                return !behind.isEmpty();
            }
        }

        @Override
        public void run() {
            long n = 0;
            boolean done = false;
            if (getError() == null) {
                try {
                    synchronized (this) {
                        if (!completionDone) {
                            return; // the notification that is already being processed covers this one
                        }
                        waiting = false;
                        n = read ? readNow() : writeNow();
                        done = n == 0 && finished();
                        if (n != 0 || done) {
                            completionDone = false;
                        }
                    }
                    if (n == 0 && !done && block == BlockingMode.BLOCK) {
                        n = awaitAndRetry();
                        done = n == 0 && finished();
                    }
                } catch (IOException e) {
                    setError(e);
                }
            }
            if (n > 0 || done) {
                completion.completed(Long.valueOf(n), this);
            } else if (n < 0 || getError() != null) {
                IOException error = getError();
                completion.failed(error == null ? new EOFException() : error, this);
            } else {
                inline = false;
                waiting = true;
                armForOperation(read ? SelectionKey.OP_READ : SelectionKey.OP_WRITE);
            }
        }

        private boolean finished() {
            return !buffersArrayHasRemaining(buffers, offset, length) && (read || !hasOutboundRemaining());
        }

        /** {@code BLOCK}: waits for the socket on this thread, with the operation's deadline. */
        private long awaitAndRetry() throws IOException {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    if (!read) {
                        writeCounters.writeTimeout();
                    }
                    throw new SocketTimeoutException((read ? "Read" : "Write") + " timed out after " +
                            unit.toMillis(timeout) + " ms");
                }
                awaitSocket(read ? SelectionKey.OP_READ : SelectionKey.OP_WRITE, left);
                long n;
                synchronized (this) {
                    n = read ? readNow() : writeNow();
                    if (n != 0 || finished()) {
                        completionDone = false;
                        return n;
                    }
                }
            }
        }

        /** Bytes a processor handed back first, then one scattering read; -1 at end of stream. */
        private long readNow() throws IOException {
            long n = 0;
            socketBufferHandler.configureReadBufferForRead();
            ByteBuffer held = socketBufferHandler.getReadBuffer();
            for (int i = 0; i < length && held.hasRemaining(); i++) {
                n += transfer(held, buffers[offset + i]);
            }
            if (n > 0) {
                return n;
            }
            if (tls == null) {
                n = channel.read(buffers, offset, length);
            } else {
                for (int i = 0; i < length; i++) {
                    if (buffers[offset + i].hasRemaining()) {
                        int r = tls.read(buffers[offset + i]);
                        if (r <= 0) {
                            n = n == 0 ? r : n;
                            break;
                        }
                        n += r;
                    }
                }
            }
            if (n > 0) {
                lastRead = System.currentTimeMillis();
            }
            return n;
        }

        /** Bytes left behind and held TLS records first, then gathering writes while the kernel takes them. */
        private long writeNow() throws IOException {
            checkPreviousError();
            if (lock.isHeldByCurrentThread()) {
                // Gathered bytes left for the stall detector go first. Only the connection's running thread holds
                // any (GatheredOutput.afterGathering), so a writer without the lock has none to take back.
                gathering.takeBack();
            }
            long total = 0;
            synchronized (behind) {
                while (!behind.isEmpty()) {
                    if (behind.writeTo(out) <= 0) {
                        return 0;
                    }
                }
                socketBufferHandler.configureWriteBufferForRead();
                ByteBuffer held = socketBufferHandler.getWriteBuffer();
                while (held.hasRemaining()) {
                    if (out.write(held) <= 0) {
                        return 0;
                    }
                }
                long n;
                do {
                    n = out.write(buffers, offset, length);
                    writeCounters.wrote(n);
                    total += n;
                } while (n > 0 && behind.isEmpty() && buffersArrayHasRemaining(buffers, offset, length));
            }
            if (total > 0) {
                wrote();
            }
            return total;
        }
    }

    @Override
    public String toString() {
        return "HybridSocketWrapper[" + channel + ", loop=" + loop.getId() + ", interest=" + interestOps +
                ", idle=" + idle + ", closed=" + isClosed() + "]";
    }
}
