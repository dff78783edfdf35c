package io.hybridconnector.endpoint;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

import io.hybridconnector.loop.ConnectorThreads;
import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.LoopCounters;
import io.hybridconnector.loop.LoopThreadPool;
import io.hybridconnector.loop.HandOffPolicy;
import io.hybridconnector.loop.StallDetector;
import io.hybridconnector.loop.TimeSlicing;
import io.hybridconnector.schedule.Scheduler;
import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.tls.TlsBufferPool;
import io.hybridconnector.tls.TlsChannel;
import io.hybridconnector.tls.TlsEngineFactory;
import io.hybridconnector.write.WriteBehindMemory;
import io.hybridconnector.write.WriteCounters;
import io.netty.buffer.ByteBufAllocator;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.AbstractEndpoint;
import org.apache.tomcat.util.net.Acceptor;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLImplementation;
import org.apache.tomcat.util.net.SocketBufferHandler;
import org.apache.tomcat.util.net.SocketEvent;
import org.apache.tomcat.util.net.SocketProcessorBase;
import org.apache.tomcat.util.net.SocketWrapperBase;
import org.apache.tomcat.util.threads.VirtualThreadExecutor;

/**
 * The endpoint: binds the server socket, accepts connections with Tomcat's {@code Acceptor}, gives each to the
 * least-loaded {@link EventLoop}, and routes the events Tomcat raises ({@link #processSocket}) to the connection's
 * loop. All request work happens on the loops' leaders; see {@link EventLoop} for the threading.
 * <p>
 * Threads: lifecycle methods run on Tomcat's lifecycle thread; {@link #setSocketOptions} and
 * {@link #countUpOrAwaitConnection} on the acceptor; {@link #processSocket} on any thread.
 * <p>
 * TLS ({@code SSLEnabled="true"}): Tomcat's {@code <SSLHostConfig>} and {@code <Certificate>} configuration as it is,
 * kept by {@link AbstractEndpoint} (host configurations, reload, ALPN protocols); a {@link TlsEngineFactory} makes the
 * contexts and each connection's engine, and the connection's {@link TlsChannel} does the rest. It extends
 * {@code AbstractEndpoint}, not {@code AbstractJsseEndpoint}: the latter is gone in Tomcat 11 (merged into
 * {@code AbstractEndpoint}), and one jar runs on both.
 */
public class HybridEndpoint extends ListeningEndpoint {

    private static final Log log = LogFactory.getLog(HybridEndpoint.class);

    /**
     * Request classes remembered by the classifier (paths, and as many paths refined by a query); new paths beyond it
     * are treated as light.
     */
    static final int CLASSIFIER_CAPACITY = 4096;

    private EventLoop[] loops = new EventLoop[0];
    private LoopThreadPool pool;
    /** Made at start for {@code useVirtualThreads="true"} without an executor; shut down at stop. */
    private VirtualThreadExecutor virtualThreads;
    private StallDetector detector;
    /** Whether requests compute off the loops, so that loops serve on pool threads; replaced at each start. */
    private volatile TimeSlicing timeSlicing = new TimeSlicing(null, null, false);
    /**
     * Writes the gathered bytes of requests that pause (OutputHold): the stall detector, or under thread models that
     * do not hand loops off, a detector that looks at no loop and does only this.
     */
    private StallDetector outputWatcher;
    private final LoopCounters counters = new LoopCounters();
    /** Read and write buffers of connections between requests; made at each start, bounded as configured. */
    private volatile SocketBufferPool bufferPool = new SocketBufferPool(0, SocketBufferPool.DEFAULT_IDLE_MILLIS);

    private final WriteCounters writeCounters = new WriteCounters();
    private final RequestClassifier classifier = new RequestClassifier(CLASSIFIER_CAPACITY);
    private ByteBufAllocator writeBehindAllocator;
    /** Which thread runs each connection's events, for the thread model; made at each start. */
    private Scheduler scheduler;
    private LoopAcceptor[] loopAcceptors = new LoopAcceptor[0];

    /** Makes the TLS contexts at bind and each TLS connection's engine. */
    private final TlsEngineFactory tls = new TlsEngineFactory(this::getSSLHostConfig, negotiableProtocols);
    /** Record buffers of TLS connections that have bytes in flight; idle ones give theirs back. */
    private final TlsBufferPool tlsBuffers = new TlsBufferPool(4096);

    private int nextLoop;

    public HybridEndpoint() {
        setMaxThreads(DEFAULT_THREADS);
        // Idle keep-alive connections hold no thread and no buffers: nothing to time out.
        setKeepAliveTimeout(-1);
        setMaxKeepAliveRequests(-1);
        // useAsyncIO stays Tomcat's default (true): HTTP/2 and WebSocket use the socket wrapper's asynchronous
        // operations, completed by the loop (HybridSocketWrapper.LoopOperation).
        // Catalina hands a large body over in 8 KB slices. Collecting them in a 64 KB direct buffer costs the one
        // copy the JDK would make anyway (it copies heap buffers to a temporary direct buffer on every write) and
        // lets a 10 KB response leave in one write() and a 100 KB one in two. Only requests in progress hold it.
        socketProperties.setAppWriteBufSize(64 * 1024);
        socketProperties.setDirectBuffer(true);
    }

    // ------------------------------------------------------------------ settings

    /** @return the event loops running, or configured when stopped ({@code threads} of them under {@code single}) */
    public int getLoops() {
        int running = loops.length;
        return running > 0 ? running : threadModel.loops(loopCount, getMaxThreads());
    }

    /** @return the current start's switch (read by connections once, when they are created) */
    public TimeSlicing timeSlicing() {
        return timeSlicing;
    }

    /** @return the loops running (empty when stopped), for the MBean's loop-wait figures */
    public EventLoop[] eventLoops() {
        return loops;
    }

    public LoopCounters counters() {
        return counters;
    }

    public WriteCounters writeCounters() {
        return writeCounters;
    }

    public RequestClassifier classifier() {
        return classifier;
    }

    ByteBufAllocator writeBehindAllocator() {
        return writeBehindAllocator;
    }

    /**
     * A loop accepted and admitted a client: it keeps it, unless another loop has clearly fewer connections (the
     * kernel gave a burst of clients to the loop that woke first), which then gets it as a task. Leader only.
     */
    void acceptOnLoop(SocketChannel socket, EventLoop loop) {
        EventLoop target = lessLoadedThan(loop);
        HybridSocketWrapper wrapper = wrap(socket, target);
        if (wrapper != null) {
            scheduler.open(wrapper, target == loop);
        }
    }

    /**
     * @return {@code loop}, or the loop with the fewest connections if {@code loop} has more than that by over a
     *         sixteenth plus four: a spread the accept-time choice corrects, small enough differences not to cost a
     *         hand-off (under connection churn the counts stay close and every loop keeps what it accepts)
     */
    private EventLoop lessLoadedThan(EventLoop loop) {
        EventLoop best = fewestConnections(loop.getId());
        int own = loop.getConnectionCount();
        return own - best.getConnectionCount() > 4 + own / 16 ? best : loop;
    }

    @Override
    public void pause() {
        super.pause();
        setLoopsAccepting(false);
    }

    @Override
    public void resume() {
        super.resume();
        setLoopsAccepting(true);
    }

    @Override
    void resumeLoopAccepting() {
        onEachLoopAcceptor(LoopAcceptor::resumeIfHolding);
    }

    private void setLoopsAccepting(boolean accepting) {
        onEachLoopAcceptor(la -> la.setAccepting(accepting));
    }

    /** Runs {@code task} on each loop's acceptor, as a task of that loop (none under {@code acceptMode="acceptor"}). */
    private void onEachLoopAcceptor(Predicate<LoopAcceptor> task) {
        LoopAcceptor[] las = loopAcceptors;
        for (int i = 0; i < las.length; i++) {
            LoopAcceptor la = las[i];
            loops[i].submit(() -> task.test(la));
        }
    }

    /** @return which thread runs each connection's events, for the thread model; {@code null} when stopped */
    Scheduler scheduler() {
        return scheduler;
    }

    @Override
    public void setMaxThreads(int maxThreads) {
        super.setMaxThreads(maxThreads);
        LoopThreadPool p = pool;
        if (p != null) {
            p.setMaxThreads(maxThreads);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    /** TLS contexts first: a wrong keystore or password stops the start before the port is taken. */
    @Override
    public void bind() throws Exception {
        initTls();
        super.bind();
    }

    @Override
    public void startInternal() throws Exception {
        if (running) {
            return;
        }
        running = true;
        paused = false;
        int threads = getMaxThreads();
        int n = threadModel.loops(loopCount, threads);
        pool = new LoopThreadPool(getName(), threads, getDaemon(), taskExecutor());
        detector = threadModel.handsOff() ?
                new StallDetector(new HandOffPolicy(blockedHandOffMillis), loopWarnMillis) : null;
        if (writeBehindAllocator == null) {
            writeBehindAllocator = WriteBehindMemory.newAllocator(n);
        }
        SocketBufferPool buffers = new SocketBufferPool(SocketBufferPool.capacity(socketProperties),
                SocketBufferPool.idleMillis());
        bufferPool = buffers;
        EventLoop[] created = new EventLoop[n];
        for (int i = 0; i < n; i++) {
            created[i] = new EventLoop(i, pool, counters, detector);
        }
        created[0].setHousekeeping(() -> buffers.sweepIfDue(System.nanoTime()));
        loops = created;
        useAsTomcatExecutor(pool);
        internalExecutor = true;
        initializeConnectionLatch();
        pool.start(created);
        timeSlicing = new TimeSlicing(pool, counters, detector != null && timeSlicingEnabled);
        scheduler = threadModel.newScheduler(pool, timeSlicing, counters, hasTaskExecutor());
        if (detector != null) {
            detector.start(created, timeSlicing, getName() + "-stall-detector");
            outputWatcher = detector;
        } else {
            outputWatcher = new StallDetector(new HandOffPolicy(blockedHandOffMillis), -1);
            outputWatcher.start(new EventLoop[0], getName() + "-output-watcher");
        }
        admission.warnIfDescriptorsShort();
        if (acceptOnLoops) {
            // Never started: Tomcat's final closeServerSocketGraceful (Boot's graceful shutdown) stops "the acceptor"
            // and found none (a NullPointerException); stopping one that never ran only sets a flag.
            acceptor = new Acceptor<>(this);
            loopAcceptors = new LoopAcceptor[n];
            for (int i = 0; i < n; i++) {
                LoopAcceptor la = new LoopAcceptor(this, created[i], serverSocket);
                loopAcceptors[i] = la;
                created[i].submit(la::register);
            }
        } else {
            startAcceptorThread();
        }
    }

    /** Tomcat's acceptor thread, made as every connector thread is ({@link ConnectorThreads}). */
    @Override
    protected void startAcceptorThread() {
        ConnectorThreads.asConnector(() -> {
            super.startAcceptorThread();
            return null;
        });
    }

    /**
     * Stop, in this order (DESIGN.md, "Stop"): no new connections (acceptor stopped; the listening socket closed now
     * if this stop unbinds anyway), then every connection shut down and closed, which releases a thread blocked
     * reading or writing with an error at once, then the threads joined. The reverse order made the join wait for
     * blocked reads until {@code executorTerminationTimeoutMillis} (5 s) and an interrupt. A graceful stop
     * ({@code closeServerSocketGraceful}, {@code awaitConnectionsClose}) ran before this and let requests finish.
     */
    @Override
    public void stopInternal() throws Exception {
        if (!paused) {
            pause();
        }
        if (!running) {
            return;
        }
        running = false;
        if (acceptor != null && !acceptOnLoops) {
            acceptor.stopMillis((int) getExecutorTerminationTimeoutMillis()); // the loops' acceptor never ran
        }
        if (getBindState() != BindState.BOUND_ON_INIT) {
            doCloseServerSocket(); // bound on start: unbound right after this stop anyway
        }
        shutDownConnections();
        for (EventLoop loop : loops) {
            loop.stop(); // the leader closes its connections and the selector
        }
        if (outputWatcher != null) {
            outputWatcher.stop();
        }
        pool.stop(getExecutorTerminationTimeoutMillis());
        for (EventLoop loop : loops) {
            loop.closeSelectorIfOpen();
        }
        // Connections whose loop had no leader at stop time.
        for (SocketWrapperBase<SocketChannel> w : connections.values()) {
            w.close();
        }
        useAsTomcatExecutor(null);
        if (virtualThreads != null) {
            virtualThreads.shutdown(); // ours; an executor the operator gave is theirs to stop, as on stock NIO
            virtualThreads = null;
        }
        bufferPool.clear();
        tlsBuffers.clear();
    }

    /**
     * Shuts down both directions of every connection's socket. A thread waiting for its socket (a servlet reading a
     * body, a writer waiting for the client) wakes at once: the kernel reports the socket ready (end of stream,
     * broken pipe; a thread already waiting is also woken through its {@link SocketWaiter}), the read or write fails, and the request ends with that error.
     * Only the socket's state changes, so any thread may do it while the owner runs; the owner or the loop closes the
     * channel after.
     */
    private void shutDownConnections() {
        for (SocketChannel socket : connections.keySet()) {
            try {
                socket.shutdownInput();
                socket.shutdownOutput();
            } catch (IOException | RuntimeException e) {
                log.debug("Shutdown of a connection at stop failed", e); // closed meanwhile, or never connected
            }
        }
        SocketWaiter.wakeWaitersOn(connections.keySet());
    }

    @Override
    public void unbind() throws Exception {
        if (running) {
            stop();
        }
        doCloseServerSocket();
        getHandler().recycle();
        tls.stop();
    }

    /**
     * The listening socket ({@link ListeningEndpoint#doCloseServerSocket}), then, differing from Tomcat on purpose,
     * idle keep-alive connections are closed now (graceful stop, see below).
     */
    @Override
    protected void doCloseServerSocket() throws IOException {
        super.doCloseServerSocket();
        if (acceptOnLoops) {
            // A channel registered with selectors closes once each selected again: wake them, so it closes now.
            for (EventLoop loop : loops) {
                loop.wakeup();
            }
        }
        // Graceful stop: idle keep-alive connections have nothing in flight; close them now so that
        // awaitConnectionsClose() waits only for requests that are running.
        for (SocketWrapperBase<SocketChannel> w : connections.values()) {
            HybridSocketWrapper hw = (HybridSocketWrapper) w;
            if (hw.isIdle()) {
                hw.loop().submit(() -> {
                    hw.closeIfIdle();
                    return true;
                });
            }
        }
    }

    /** Where off-loop tasks run from this start on: the operator's executor, virtual threads, or our pool (null). */
    private Executor taskExecutor() {
        if (externalExecutor != null) {
            return externalExecutor;
        }
        if (getUseVirtualThreads()) {
            // As stock NIO (AbstractEndpoint.createExecutor); on a JDK without virtual threads this fails as stock does.
            virtualThreads = new VirtualThreadExecutor(getName() + "-virt-");
            return virtualThreads;
        }
        return null;
    }

    /** @return {@code true} if off-loop work runs on an executor the operator asked for (not our own threads) */
    boolean hasTaskExecutor() {
        LoopThreadPool p = pool;
        return p != null && p.hasTaskExecutor();
    }

    // ------------------------------------------------------------------ TLS

    /** @return the SSL implementation in use (JSSE unless {@code sslImplementationName} says otherwise), once bound */
    public SSLImplementation getSslImplementation() {
        return tls.implementation();
    }

    /** At bind, with TLS on: loads the implementation and makes every host configuration's contexts. */
    private void initTls() {
        if (isSSLEnabled()) {
            tls.start(sslImplementationName, sslHostConfigs, getDefaultSSLHostConfigName(), getName());
        }
    }

    /**
     * Makes (again, on reload) the contexts of one host configuration: Tomcat calls this when a host configuration is
     * added to or replaced on a bound endpoint ({@code addSslHostConfig(cfg, true)}, {@code reloadSslHostConfigs()}).
     */
    @Override
    protected void createSSLContext(SSLHostConfig sslHostConfig) throws IllegalArgumentException {
        tls.createContexts(sslHostConfig);
    }

    /** Tomcat calls this for a host configuration it rejects (a duplicate host name): its contexts are destroyed. */
    @Override
    protected void releaseSSLContext(SSLHostConfig sslHostConfig) {
        tls.release(sslHostConfig);
    }

    /** A connection's TLS layer; its engine is created from the client's hello. */
    TlsChannel newTlsChannel(SocketChannel socket) {
        return new TlsChannel(socket, tls, tlsBuffers, sniParseLimit);
    }

    // ------------------------------------------------------------------ accepting

    /**
     * Tomcat's acceptor thread ({@code acceptMode="acceptor"}): out of file descriptors, the least recently used idle
     * connection is closed and the client in the backlog accepted again ({@link Admission#awaitDescriptor}); other
     * failures, or nothing idle, go to Tomcat's acceptor, which logs them and backs off as on stock NIO.
     */
    @Override
    protected SocketChannel serverSocketAccept() throws Exception {
        while (true) {
            try {
                return super.serverSocketAccept();
            } catch (IOException e) {
                if (!admission.awaitDescriptor(e)) {
                    throw e;
                }
            }
        }
    }

    @Override
    protected boolean setSocketOptions(SocketChannel socket) {
        EventLoop loop = leastLoadedLoop();
        HybridSocketWrapper wrapper = wrap(socket, loop);
        if (wrapper == null) {
            return false;
        }
        scheduler.open(wrapper, false);
        return true;
    }

    /**
     * Sets the socket up and records the connection (the scheduler then opens it). On failure the
     * socket is closed and its place under {@code maxConnections} given back: Tomcat's Acceptor closes only sockets
     * it finds in {@code connections}, as NioEndpoint knows.
     * <p>
     * Follows Tomcat 10.1.59 {@code NioEndpoint.setSocketOptions} (same in 11.0.25): non-blocking, TCP options unless
     * on a Unix socket, read and write timeouts, keep-alive count, then registration. Differs on purpose: a TLS
     * connection's channel is made by the wrapper ({@code newTlsChannel}), buffers come from this endpoint's pool when a
     * request needs them, and registration goes to the chosen loop.
     *
     * @return the wrapper, or {@code null} if the socket could not be set up
     */
    private HybridSocketWrapper wrap(SocketChannel socket, EventLoop loop) {
        HybridSocketWrapper wrapper = null;
        try {
            socket.configureBlocking(false);
            if (unixDomainSocketPath == null) {
                socketProperties.setProperties(socket.socket()); // TCP options; none apply to a Unix socket
            }
            wrapper = new HybridSocketWrapper(socket, this, loop);
            loop.assigned(); // from here on every failure closes the wrapper, which counts it off the loop again
            wrapper.setReadTimeout(getConnectionTimeout());
            wrapper.setWriteTimeout(getConnectionTimeout());
            wrapper.setKeepAliveLeft(getMaxKeepAliveRequests());
            connections.put(socket, wrapper);
            return wrapper;
        } catch (Throwable t) {
            org.apache.tomcat.util.ExceptionUtils.handleThrowable(t);
            log.error("Error setting socket options", t);
            if (wrapper == null || connections.get(socket) != wrapper) {
                destroySocket(socket);
            } else {
                wrapper.close();
            }
            return null;
        }
    }

    /** The loop with the fewest connections; ties go round-robin. Acceptor thread only. */
    private EventLoop leastLoadedLoop() {
        EventLoop best = fewestConnections(nextLoop);
        nextLoop = (nextLoop + 1) % loops.length;
        return best;
    }

    /** @return the loop with the fewest connections; of equals, the first from loop {@code from} on. Any thread. */
    private EventLoop fewestConnections(int from) {
        EventLoop[] ls = loops;
        EventLoop best = null;
        for (int i = 0; i < ls.length; i++) {
            EventLoop candidate = ls[(from + i) % ls.length];
            if (best == null || candidate.getConnectionCount() < best.getConnectionCount()) {
                best = candidate;
            }
        }
        return best;
    }

    // ------------------------------------------------------------------ Unix domain socket

    // ------------------------------------------------------------------ processing

    /**
     * Routes an event raised by Tomcat (async completion, a non-blocking read or write listener, a timeout) to the
     * connection. A dispatch goes to the connection's loop, whose leader runs it inline; a non-dispatch runs on the
     * caller, as it does in Tomcat's endpoints.
     */
    @Override
    public boolean processSocket(SocketWrapperBase<SocketChannel> socketWrapper, SocketEvent event, boolean dispatch) {
        if (socketWrapper == null) {
            return false;
        }
        HybridSocketWrapper w = (HybridSocketWrapper) socketWrapper;
        if (dispatch) {
            w.loop().submit(() -> w.onDispatch(event));
        } else {
            w.runOnCaller(event);
        }
        return true;
    }

    /** Not used: {@link #processSocket} routes events to loops instead of wrapping them in processors. */
    @Override
    protected SocketProcessorBase<SocketChannel> createSocketProcessor(SocketWrapperBase<SocketChannel> socketWrapper,
            SocketEvent event) {
        throw new IllegalStateException("HybridEndpoint routes events through processSocket()");
    }

    /** @return the thread that writes the gathered bytes of requests that pause; {@code null} when stopped */
    StallDetector outputWatcher() {
        return outputWatcher;
    }

    SocketBufferHandler takeBuffers() {
        SocketBufferHandler buffers = bufferPool.take();
        if (buffers == null) {
            buffers = new SocketBufferHandler(socketProperties.getAppReadBufSize(),
                    socketProperties.getAppWriteBufSize(), socketProperties.getDirectBuffer());
        }
        return buffers;
    }

    /** Pools the buffers a connection no longer needs; a read buffer grown past the configured size is dropped. */
    void returnBuffers(SocketBufferHandler buffers) {
        if (buffers.getReadBuffer().capacity() != socketProperties.getAppReadBufSize()) {
            return;
        }
        buffers.reset();
        bufferPool.give(buffers);
    }

    /** @return the read/write buffer pairs pooled for the next requests (each 8 KB + 64 KB by default) */
    public int getPooledSocketBuffers() {
        return bufferPool.size();
    }

    void connectionClosed(HybridSocketWrapper wrapper) {
        connections.remove(wrapper.getSocket());
        wrapper.loop().deregistered();
        admission.connectionClosed();
    }

    // ------------------------------------------------------------------ monitoring

    @Override
    public int getCurrentThreadCount() {
        LoopThreadPool p = pool;
        return p == null ? 0 : p.getPoolSize();
    }

    /**
     * Threads running a request, as stock NIO's {@code currentThreadsBusy} means (actuator's {@code tomcat.threads.busy}):
     * leaders inside a run, threads finishing a request off the loops, and tasks on the operator's executor. A leader
     * waiting in {@code epoll_wait} for its connections is idle, not busy.
     */
    @Override
    public int getCurrentThreadsBusy() {
        LoopThreadPool p = pool;
        EventLoop[] ls = loops;
        if (p == null || ls == null) {
            return 0;
        }
        int busy = p.getOffLoopCount() + p.getExternalTasksRunning();
        for (EventLoop loop : ls) {
            if (loop.isLeaderInRun()) {
                busy++;
            }
        }
        return busy;
    }

    /** @return tasks running on the operator's executor right now (0 without one) */
    public int getExecutorTasksRunning() {
        LoopThreadPool p = pool;
        return p == null ? 0 : p.getExternalTasksRunning();
    }

    /**
     * Stock NIO's {@code keepAliveCount} (actuator's {@code tomcat.connections.keepalive.current}), with its documented
     * meaning: connections open and waiting for their next request, the first one included (a client that connected
     * and has not sent it yet). Those are the connections that hold no buffers: a connection takes them when its
     * request starts and gives them back when it is idle again, so this reads the flag the connections keep anyway,
     * at no cost per request. Before, it counted {@link #getIdleConnectionCount()}, which leaves out connections
     * waiting for their first request (0 while stock NIO counted them). Stock counts its poller's registered sockets,
     * which also includes requests running, asynchronous ones and upgraded connections; those are not counted here.
     * Any thread (JMX); walks the connections.
     */
    public int getKeepAliveCount() {
        int n = 0;
        for (SocketWrapperBase<SocketChannel> w : connections.values()) {
            if (w.getSocketBufferHandler() == ConnectionIo.NO_BUFFERS && !w.isClosed()) {
                n++;
            }
        }
        return n;
    }

    /** @return requests running away from their loop because they blocked (threads busy beyond the leaders) */
    public int getBlockedRequests() {
        LoopThreadPool p = pool;
        return p == null ? 0 : Math.max(0, p.getActiveCount() - loops.length);
    }

    /** @return keep-alive connections between requests (no thread, no buffers) */
    public int getIdleConnectionCount() {
        int n = 0;
        for (SocketWrapperBase<SocketChannel> w : connections.values()) {
            if (((HybridSocketWrapper) w).isIdle()) {
                n++;
            }
        }
        return n;
    }

    public String describeLoops() {
        StringBuilder sb = new StringBuilder();
        for (EventLoop loop : loops) {
            sb.append(loop).append('\n');
        }
        return sb.toString();
    }

    @Override
    protected Log getLog() {
        return log;
    }
}
