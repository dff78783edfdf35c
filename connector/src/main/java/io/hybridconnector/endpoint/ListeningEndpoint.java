package io.hybridconnector.endpoint;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * The listening socket and admission: Tomcat's accept contract ({@code bind}, {@code serverSocketAccept},
 * {@code countUpOrAwaitConnection}, {@code destroySocket}, {@code unlockAccept}, {@code doCloseServerSocket}), over a
 * TCP port or a Unix socket file. Threads: lifecycle methods on Tomcat's lifecycle thread, accepting on Tomcat's
 * {@code Acceptor} thread; the wait at {@code maxConnections} and the LRU eviction are {@link Admission}'s.
 * <p>
 * Follows Tomcat 10.1.59 {@code org/apache/tomcat/util/net/NioEndpoint.java} ({@code bind}/{@code initServerSocket},
 * {@code doCloseServerSocket}, {@code unlockAccept}, {@code getId}) and {@code AbstractJsseEndpoint.getLocalAddress}
 * (11.0.25: {@code AbstractNetworkChannelEndpoint}); 11.0.25 is the same otherwise. What differs on purpose is said
 * at each method.
 */
abstract class ListeningEndpoint extends EndpointSettings {

    private static final Log log = LogFactory.getLog(HybridEndpoint.class);

    volatile ServerSocketChannel serverSocket;
    /** The acceptor's wait for clients, admission at {@code maxConnections} and LRU eviction of idle connections. */
    final Admission admission = new Admission(this);

    /**
     * The listening socket. Follows Tomcat 10.1.59 {@code NioEndpoint.bind} and
     * {@code initServerSocket} (same in 11.0.25): TCP socket options, address, port offset and backlog as there; the
     * Unix-socket branch is {@link UnixSocketFile}. Differs on purpose: the listening socket is non-blocking, watched by
     * the acceptor's selector (or the loops'); no {@code useInheritedChannel}.
     */
    @Override
    public void bind() throws Exception {
        ServerSocketChannel ssc;
        if (unixDomainSocketPath != null) {
            // The file has its permissions from the moment it appears: no window for another local user.
            ssc = UnixSocketFile.bind(Paths.get(unixDomainSocketPath), unixDomainSocketPathPermissions,
                    unixDomainSocketParentPermissions, unixDomainSocketParentOwner, getAcceptCount());
        } else {
            ssc = ServerSocketChannel.open();
            socketProperties.setProperties(ssc.socket());
            ssc.bind(new InetSocketAddress(getAddress(), getPortWithOffset()), getAcceptCount());
        }
        ssc.configureBlocking(false);
        admission.open(ssc);
        serverSocket = ssc;
    }

    /** Blocks until a client connects; the acceptor's selector wait replaces a blocking accept(). */
    @Override
    protected SocketChannel serverSocketAccept() throws Exception {
        while (true) {
            ServerSocketChannel ssc = serverSocket;
            if (ssc == null) {
                throw new IOException("Server socket is closed");
            }
            SocketChannel socket = ssc.accept();
            if (socket != null) {
                return socket;
            }
            admission.awaitClient();
        }
    }

    /** At {@code maxConnections}, waits for room ({@link Admission#awaitRoom}), then counts the client. Acceptor. */
    @Override
    protected void countUpOrAwaitConnection() throws InterruptedException {
        admission.awaitRoom();
        super.countUpOrAwaitConnection();
    }

    /** A connection went idle (between requests, nothing behind): wakes whoever holds a client at the limit. */
    void connectionIdle() {
        admission.connectionIdle(); // two volatile reads, unless a client is held at maxConnections
    }

    /** Loops that stopped accepting at {@code maxConnections} look again: a place may be free. Any thread. */
    abstract void resumeLoopAccepting();

    /** Counts a connection admitted by a loop, below the limit: Tomcat's count, which returns at once there. */
    void countUpBelowLimit() throws InterruptedException {
        super.countUpOrAwaitConnection();
    }

    /** @return the live connections, for the LRU scan (no copy: Tomcat's map, weakly consistent) */
    Iterable<SocketWrapperBase<SocketChannel>> liveConnections() {
        return connections.values();
    }

    @Override
    protected void destroySocket(SocketChannel socket) {
        countDownConnection();
        try {
            socket.close();
        } catch (IOException e) {
            log.debug("Close failed", e);
        }
    }

    static void destroySocketUncounted(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException e) {
            log.debug("Close failed", e);
        }
    }

    /** Follows Tomcat 10.1.59 {@code AbstractJsseEndpoint.getLocalAddress} (11.0.25: {@code AbstractNetworkChannelEndpoint}). */
    @Override
    protected InetSocketAddress getLocalAddress() throws IOException {
        ServerSocketChannel ssc = serverSocket;
        if (ssc == null || unixDomainSocketPath != null) {
            return null;
        }
        return (InetSocketAddress) ssc.getLocalAddress();
    }

    /**
     * Wakes an acceptor blocked waiting for a client (pause, stop), on a Unix socket too. Follows Tomcat 10.1.59
     * {@code NioEndpoint.unlockAccept} (same in 11.0.25): on a Unix socket, a connection to the socket file. Differs on
     * purpose: the acceptor's selector is woken first, which is enough, so there is no wait for the acceptor to
     * leave its accept (Tomcat polls its state for up to a second).
     */
    @Override
    protected void unlockAccept() {
        admission.wakeup();
        if (unixDomainSocketPath == null) {
            super.unlockAccept();
            return;
        }
        try (SocketChannel wake = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            wake.connect(UnixDomainSocketAddress.of(unixDomainSocketPath));
        } catch (IOException | RuntimeException e) {
            log.debug("Could not wake the acceptor on " + unixDomainSocketPath, e);
        }
    }

    /** Names the connector after its socket file when there is no port: Tomcat 10.1.59 {@code NioEndpoint.getId}. */
    @Override
    public String getId() {
        return unixDomainSocketPath;
    }

    /**
     * Closes the listening socket, deleting a Unix socket's file once the socket that made it is closed, and the
     * acceptor's selector. Follows Tomcat 10.1.59 {@code NioEndpoint.doCloseServerSocket} (same in 11.0.25).
     */
    @Override
    protected void doCloseServerSocket() throws IOException {
        ServerSocketChannel ssc = serverSocket;
        serverSocket = null;
        if (ssc != null) {
            ssc.close();
            if (unixDomainSocketPath != null) {
                Files.deleteIfExists(Paths.get(unixDomainSocketPath));
            }
        }
        admission.close();
    }
}
