package io.hybridconnector.endpoint;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.classify.RequestClassifier.RequestClass;
import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.LoopChannel;
import io.hybridconnector.loop.LoopThread;
import io.hybridconnector.schedule.ScheduledConnection;
import io.hybridconnector.schedule.Scheduler;
import io.hybridconnector.write.WriteBehindBuffer;

import org.apache.tomcat.util.ExceptionUtils;
import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SocketBufferHandler;
import org.apache.tomcat.util.net.SocketEvent;

/**
 * One HTTP connection on its {@link EventLoop} ({@link LoopChannel}): readiness and timeouts, the ways a
 * {@link Scheduler} may run an event ({@link ScheduledConnection}), runs through Tomcat's handler, the lock's
 * contention, and the close path. The layers below, one concern each: {@link LoopRegistration} (the key and its
 * interest set), {@link AsyncOperations} (Tomcat's asynchronous operations), {@link ConnectionIo} (reads and writes)
 * and {@link TomcatSocketWrapper} (what follows Tomcat's {@code NioSocketWrapper}).
 * <p>
 * Threads. Processing runs under the wrapper's lock, normally on the loop's leader (inline, straight from the
 * selector); after a hand-off, on the thread the request blocked; for {@code dispatch=false} calls, on the caller.
 * The selection key and its interest set are written only by the loop's leader: a thread that is not the leader
 * sends its interest changes to the loop as a task. Fields marked "leader only" follow that rule; fields marked
 * "lock" are guarded by the wrapper's lock.
 * <p>
 * Which thread runs an event is the endpoint's {@link Scheduler}'s decision (one per thread model, in
 * {@code io.hybridconnector.schedule}); this class offers it the ways to run one and never asks which model runs.
 */
public final class HybridSocketWrapper extends LoopRegistration implements ScheduledConnection {

    /** What a request held past its deadline gets before the close ({@link #closeTooSlow}). */
    private static final ByteBuffer REQUEST_TIMEOUT = ByteBuffer.wrap(("HTTP/1.1 408 Request Timeout\r\n" +
            "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)).asReadOnlyBuffer();

    /** Decides which thread runs each event (the thread model); one per endpoint start. */
    private final Scheduler scheduler;
    /** Lock: the previous request waited off its loop, or ran on the executor ({@link #lastRunWaitedOffLoop}). */
    private boolean lastRunWaitedOffLoop;
    /**
     * Lock: the previous request left its loop (it blocked or computed, or its class is known to), or took half the
     * budget on a pool thread; so the next one will most likely leave too: with an executor, it starts there
     * ({@link #lastRunLeftLoop}). Written at the end of a run under the lock, read by the leader when the connection is
     * ready again (after that run gave the connection back); a stale read costs one misplaced run.
     */
    private boolean lastRunLeftLoop;
    /** Lock: how long the previous request ran ({@link #lastRunNanos}). Written and read as {@link #lastRunLeftLoop}. */
    private long lastRunNanos;

    /** The protocol is HTTP/1.1: new requests are held on the loop until they can run ({@link RequestReadAhead}). */
    private final boolean readAhead;
    /** Lock: when the loop began holding the request that has not fully arrived yet; 0 when none is held. */
    private long heldSinceMillis;
    /** Lock: those bytes, while the connection holds no pooled buffers ({@link #parkHeldBytes}); else {@code null}. */
    private ByteBuffer held;
    /**
     * Leader: a readiness of a TLS connection that had not read application data before it (its handshake, or its
     * first request, which the read-ahead may read): {@link #nextRequestLeavesLoop} starts it on the executor.
     */
    private boolean tlsFirstRequest;
    /**
     * The connection upgraded (HTTP/2, WebSocket): its bytes are frames for the upgrade handler, which reads them on
     * threads of its own; the read-ahead never looks at them. Written by the run that upgraded, read by the leader.
     */
    private volatile boolean upgraded;
    /** Lock: the leader read the socket for the readiness being handled ({@link #readyToRead}). */
    private boolean readForThisEvent;

    /** Leader only: events dispatched to the loop while another thread held the connection. */
    private final ArrayDeque<SocketEvent> pendingEvents = new ArrayDeque<>(2);

    /** Closed while another thread held the lock: the pooled memory goes back when the connection is free. */
    private volatile boolean releasePending;
    /** Set by the loop when it found the connection locked; the holder resumes it when it lets go. */
    private volatile boolean contended;
    /** Between requests on a keep-alive connection, with nothing buffered: may be evicted or closed on drain. */
    private volatile boolean idle;

    HybridSocketWrapper(SocketChannel channel, HybridEndpoint endpoint, EventLoop loop) {
        super(channel, endpoint, loop);
        this.scheduler = endpoint.scheduler();
        this.readAhead = endpoint.isReadAhead();
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    boolean isIdle() {
        return idle;
    }

    long getLastRead() {
        return lastRead;
    }

    // ------------------------------------------------------------------ loop side (leader only)
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
                return scheduler.onReady(this, SocketEvent.OPEN_WRITE, SelectionKey.OP_WRITE);
            }
        }
        if (isWaiting(readOperation)) {
            return runReadOperationFromLoop();
        }
        if (tls != null && !tls.applicationDataRead()) {
            tlsFirstRequest = true; // before the read-ahead below reads it
        }
        if (readAhead && !upgraded && !requestArrived()) {
            return true; // held: the loop waits for the rest like for any connection, with no thread
        }
        return scheduler.onReady(this, SocketEvent.OPEN_READ, SelectionKey.OP_READ);
    }

    /**
     * Reads what arrived of a new request into the read buffer, where Tomcat's first read takes it, and tells whether
     * it can run ({@link RequestReadAhead}); a request that cannot is held, and its start remembered for the minimum
     * data rate. Not a request already in Tomcat's hands (a processor holds it: a body being read, an upgraded
     * connection), nor a TLS handshake. Leader only.
     */
    private boolean requestArrived() {
        if (getCurrentProcessor() != null || (tls != null && !tls.isHandshakeDone()) || !lock.tryLock()) {
            return true;
        }
        try {
            if (isClosed()) {
                return true;
            }
            readTimedOut = false;
            int n = readAhead();
            ByteBuffer buffer = socketBufferHandler.getReadBuffer();
            if (n < 0 || RequestReadAhead.runnable(buffer)) {
                heldSinceMillis = 0;
                return true;
            }
            if (heldSinceMillis == 0) {
                heldSinceMillis = lastRead;
                idle = false; // a request on its way is not evicted as an idle connection would be
                endpoint.counters().requestHeld();
            }
            parkHeldBytes(buffer);
            return false;
        } catch (IOException e) {
            readHint = true; // Tomcat's read meets the failure again and closes as it would have
            return true;
        } finally {
            unlockAndResume();
        }
    }

    /**
     * Reads what arrived into the read buffer, behind the bytes a held request left there, as Tomcat's first read
     * would: its read takes the buffer first ({@code populateReadBuffer}). The leader's look at a new request (the
     * read-ahead, the executor's class lookup); the read counts for this readiness ({@link #readyToRead}), and the
     * hint it leaves says whether the socket was drained (at the end of the stream, Tomcat's read is let see it).
     * Lock held.
     *
     * @return what the read returned; the read buffer is left ready to be read
     */
    private int readAhead() throws IOException {
        if (socketBufferHandler == NO_BUFFERS) {
            socketBufferHandler = endpoint.takeBuffers();
        }
        socketBufferHandler.configureReadBufferForWrite();
        ByteBuffer buffer = socketBufferHandler.getReadBuffer();
        if (held != null) {
            buffer.put(held);
            held = null;
        }
        int wanted = buffer.remaining();
        int n = wanted == 0 ? 0 : tls == null ? channel.read(buffer) : tls.read(buffer);
        socketBufferHandler.configureReadBufferForRead();
        readForThisEvent = true;
        if (n > 0) {
            lastRead = System.currentTimeMillis();
        }
        if (n != 0) {
            readHint = n == wanted || n < 0 || (tls != null && !tls.socketDrained());
        }
        return n;
    }

    /**
     * Keeps a held request's bytes in a heap array of their size and gives the pooled buffers back: a trickler then
     * holds a few hundred bytes rather than the read and write buffers (72 KB of direct memory each; 2,000 tricklers
     * held 142 MB before). Copied back when more bytes arrive. Lock held; slow path only.
     */
    private void parkHeldBytes(ByteBuffer buffer) {
        if (!socketBufferHandler.isWriteBufferEmpty() || !nonBlockingWriteBuffer.isEmpty()) {
            return; // bytes of the previous response still wait to leave: keep the pair until they have
        }
        held = ByteBuffer.allocate(buffer.remaining());
        held.put(buffer).flip();
        endpoint.returnBuffers(socketBufferHandler);
        socketBufferHandler = NO_BUFFERS;
    }

    /**
     * @return the held request's bytes, wherever they are: parked, or in the read buffer when its pair could not go
     *         back. Leader only, between runs.
     */
    private ByteBuffer heldRequest() {
        if (held != null) {
            return held;
        }
        socketBufferHandler.configureReadBufferForRead();
        return socketBufferHandler.getReadBuffer();
    }

    /** The request being served upgrades the connection ({@code HybridHttp11Processor}). Lock held. */
    public void upgrading() {
        upgraded = true;
    }

    /**
     * A held request reached the read timeout ({@code connectionTimeout}) with its head complete: it runs, and its
     * body read fails at once ({@link #readTimedOut}), so that Tomcat answers 400 and closes as it does on stock NIO,
     * whose servlet was waiting in that read. A head that is not complete is closed without an answer, as stock does.
     * Leader only.
     */
    private boolean releaseTimedOut() {
        heldSinceMillis = 0;
        if (!lock.tryLock()) {
            return true;
        }
        try {
            readAhead();
            readTimedOut = true;
        } catch (IOException e) {
            readHint = true;
        } finally {
            unlockAndResume();
        }
        return scheduler.onReady(this, SocketEvent.OPEN_READ, SelectionKey.OP_READ);
    }

    /** A held request missed its deadline: 408, as httpd's {@code mod_reqtimeout} answers, and close. Leader only. */
    private boolean closeTooSlow() {
        heldSinceMillis = 0;
        endpoint.counters().slowRequestClosed();
        if (lock.tryLock()) {
            try {
                out.write(REQUEST_TIMEOUT.duplicate()); // best effort: the client is slow, nothing waits for it
            } catch (IOException e) {
                // closed below anyway
            } finally {
                unlockAndResume();
            }
        }
        close();
        return true;
    }

    @Override
    public boolean checkTimeout(long now) {
        if (isClosed()) {
            return true;
        }
        if (heldSinceMillis != 0) {
            ByteBuffer request = heldRequest();
            if (now > RequestReadAhead.deadlineMillis(heldSinceMillis, request.remaining(),
                    endpoint.getRequestReadTimeout(), endpoint.getMinRequestDataRate())) {
                return closeTooSlow();
            }
            if (timedOut(now, lastRead, getReadTimeout()) && RequestReadAhead.headComplete(request)) {
                return releaseTimedOut();
            }
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
        return scheduler.onReady(this, SocketEvent.ERROR, op);
    }

    private static boolean timedOut(long now, long last, long timeout) {
        return timeout > 0 && now - last > timeout;
    }

    /** Runs a dispatched event (async completion, timeout, ...), as the scheduler decides. Leader only. */
    boolean onDispatch(SocketEvent event) {
        if (isClosed()) {
            return true;
        }
        return scheduler.onDispatch(this, event);
    }

    // ------------------------------------------------------------------ ScheduledConnection: ways to run an event

    @Override
    public boolean dispatchOnLoop(SocketEvent event) {
        if (!lock.tryLock()) {
            pendingEvents.addLast(event);
            markContended();
            return true;
        }
        return runLockedOnLoop(event, 0);
    }

    @Override
    public boolean runOnLoop(SocketEvent event, int consumed) {
        if (!lock.tryLock()) {
            suspendInterest(consumed);
            markContended();
            return true;
        }
        if ((consumed & SelectionKey.OP_READ) != 0) {
            readyToRead();
        }
        return runLockedOnLoop(event, consumed);
    }

    @Override
    public void runOnWorker(SocketEvent event, int consumed) {
        lock.lock();
        try {
            if (isClosed()) {
                return;
            }
            if ((consumed & SelectionKey.OP_READ) != 0) {
                readyToRead();
            }
            long start = System.nanoTime();
            SocketState state = runHandler(event);
            // Still long (it waited or computed for half the budget): the next request starts here too.
            long end = System.nanoTime();
            long ran = end - start;
            lastRunLeftLoop = ran >= loop.handOffBudgetNanos() / 2;
            lastRunWaitedOffLoop = lastRunLeftLoop; // its next start is a dispatch: the loop does not move
            lastRunNanos = ran;
            loop.ranOffLoop(ran, end); // a light one is what time slicing protects
            afterRun(state, consumed, false);
        } finally {
            unlockAndResume();
        }
    }

    /**
     * The selector reported the socket readable: Tomcat's next read goes to the socket, unless the leader read it
     * already for this readiness (the read-ahead, the executor's look at the request line), whose hint stands: reading
     * again after the request would be the speculative read that returns nothing.
     */
    private void readyToRead() {
        if (!readForThisEvent) {
            readHint = true;
        }
        readForThisEvent = false;
    }

    @Override
    public boolean lastRunLeftLoop() {
        return lastRunLeftLoop;
    }

    @Override
    public long lastRunNanos() {
        return lastRunNanos;
    }

    @Override
    public boolean lastRunWaitedOffLoop() {
        return lastRunWaitedOffLoop;
    }

    @Override
    public boolean nextRequestLeavesLoop() {
        RequestClassifier classifier = endpoint.classifier();
        if (!classifier.anyBlocking() || getCurrentProcessor() != null) {
            return false;
        }
        if (tls != null) {
            // Encrypted until the engine unwraps it: the first request of a new TLS connection starts on the executor,
            // with the end of the handshake (a hand-off costs a few percent of a handshake's CPU); then as any other.
            boolean first = tlsFirstRequest;
            tlsFirstRequest = false;
            return first;
        }
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (isClosed()) {
                return false;
            }
            readAhead();
            RequestClass c = classifier.lookupRequestLine(socketBufferHandler.getReadBuffer());
            return c != null && c.predictBlocking();
        } catch (IOException e) {
            readHint = true; // Tomcat's read meets the failure again and closes as it would have
            return false;
        } finally {
            unlockAndResume();
        }
    }

    @Override
    public void blockedOnLoop() {
        try {
            // The request is read racily: the run is parked in the application, its request line parsed long ago.
            RequestClass c = requestClass();
            if (c != null) {
                c.ranOnLoop(true);
            }
        } catch (RuntimeException e) {
            // The request ended and was recycled while being read: its class is learnt when the next one blocks.
        }
    }

    @Override
    public void lock() {
        lock.lock();
    }

    @Override
    public SocketState process(SocketEvent event) {
        readHint = true;
        return runHandler(event);
    }

    @Override
    public int requestedOps() {
        return requestedOps;
    }

    @Override
    public void awaitOnOwnThread(int op) throws IOException {
        if (!behind.isEmpty()) {
            flusher.drain();
        }
        long timeout = op == SelectionKey.OP_WRITE ? getWriteTimeout() :
                getReadTimeout() > 0 ? getReadTimeout() : endpoint.getConnectionTimeout();
        awaitSocket(op, timeout);
    }

    /** Runs the handler inline on the leader; the lock is held on entry and released here. */
    private boolean runLockedOnLoop(SocketEvent event, int consumed) {
        boolean leading;
        try {
            long seq = loop.beginRun(this);
            SocketState state = runHandler(event);
            leading = loop.endRun(seq);
            lastRunWaitedOffLoop = !leading && LoopThread.lastRunWaited();
            lastRunLeftLoop = !leading;
            lastRunNanos = leading ? 0 : loop.handOffBudgetNanos(); // it held the loop its share at least
            afterRun(state, consumed, leading);
        } finally {
            unlockAndResume();
        }
        return leading;
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

    /** Closes the connection if it is still idle (eviction at maxConnections, graceful stop). Leader only. */
    void closeIfIdle() {
        if (!idle) {
            return;
        }
        if (!lock.tryLock()) {
            // The thread that made it idle still holds it (it woke the acceptor before letting go): without a new
            // wake-up the acceptor would wait for its backstop (1 s) before it asked again.
            endpoint.connectionIdle();
            return;
        }
        try {
            if (idle) {
                close();
            }
        } finally {
            lock.unlock();
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
            SocketState state = runHandler(event);
            afterRun(state, 0, loop.inLoop());
        } finally {
            unlockAndResume();
        }
    }

    @Override
    public void unlockAndResume() {
        if (releasePending && lock.getHoldCount() == 1) {
            releaseMemory(); // closed by another thread while this one held the connection
        }
        lock.unlock();
        if (contended && !lock.isLocked()) {
            contended = false;
            loop.submit(this::resume);
        }
    }

    /** Runs an event through Tomcat's handler (the TLS handshake first, until done). Lock held. */
    private SocketState runHandler(SocketEvent event) {
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
            handshakeDone(tls, endpoint.hasNegotiableProtocols(), endpoint.getSslImplementation());
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
                endpoint.connectionIdle(); // two volatile reads, unless a client is held at maxConnections
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
            cancelKey();
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


    // ------------------------------------------------------------------ interest for the layers below (leader only)

    @Override
    void contended() {
        suspendInterest();
        markContended();
    }

    @Override
    void flushedBehind(int ops) {
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
    public String toString() {
        return "HybridSocketWrapper[" + channel + ", loop=" + loop.getId() + ", interest=" + interestOps +
                ", idle=" + idle + ", closed=" + isClosed() + "]";
    }
}
