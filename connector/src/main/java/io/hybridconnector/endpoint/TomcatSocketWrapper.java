package io.hybridconnector.endpoint;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import io.hybridconnector.tls.TlsChannel;

import org.apache.tomcat.util.net.AbstractEndpoint;
import org.apache.tomcat.util.net.SSLImplementation;
import org.apache.tomcat.util.net.SSLSupport;
import org.apache.tomcat.util.net.SSLUtil;
import org.apache.tomcat.util.net.SendfileDataBase;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * The part of a connection that follows Tomcat's own socket wrapper, kept in one file so that a Tomcat upgrade has one
 * place to re-sync (DESIGN.md, "Re-sync checklist"): the connection's lock, its addresses, the Unix-socket values, the
 * sendfile data and the TLS session's attributes for Tomcat. The layers above add the connector's own behaviour:
 * {@link ConnectionIo} (reads and writes), {@link AsyncOperations} (Tomcat's asynchronous operations) and
 * {@link HybridSocketWrapper} (the connection on its loop). Any thread, as its callers.
 * <p>
 * Follows Tomcat 10.1.59 {@code org/apache/tomcat/util/net/NioEndpoint.java}, {@code NioSocketWrapper}: its
 * constructor (Unix-socket addresses), {@code populateRemoteHost}, {@code populateRemoteAddr},
 * {@code populateRemotePort}, {@code populateLocalName}, {@code populateLocalAddr}, {@code populateLocalPort},
 * {@code createSendfileData}; and {@code SecureNioChannel}'s hand-over of the negotiated protocol and
 * {@code SSLSupport} once the handshake is done. Tomcat 11.0.25 is the same. Re-synced 2026-11-25. Differs on
 * purpose: no null check of the channel (ours is final and never null, Tomcat's {@code NioChannel} is recycled);
 * renegotiation for a client certificate ({@code doClientAuth}) is not offered.
 */
abstract class TomcatSocketWrapper extends SocketWrapperBase<java.nio.channels.SocketChannel> {

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

    /**
     * {@code setSniHostName(String)} exists from Tomcat 10.1.50 and 11.0.15 on, where the request checks its
     * {@code Host} against the TLS SNI name; earlier releases have neither. Resolved once by name; {@code null} where
     * absent, and the name is then not handed over (the release never asks for it).
     */
    private static final MethodHandle SET_SNI_HOST_NAME = sniSetter();

    private static MethodHandle sniSetter() {
        try {
            Method set = SocketWrapperBase.class.getMethod("setSniHostName", String.class);
            return MethodHandles.publicLookup().unreflect(set)
                    .asType(MethodType.methodType(void.class, SocketWrapperBase.class, String.class));
        } catch (NoSuchMethodException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static void setSniHostName(SocketWrapperBase<?> wrapper, String name) {
        if (SET_SNI_HOST_NAME == null) {
            return;
        }
        try {
            SET_SNI_HOST_NAME.invokeExact(wrapper, name);
        } catch (Throwable t) {
            throw new IllegalStateException("SocketWrapperBase.setSniHostName(String) failed", t);
        }
    }

    private static ReentrantLock lockOf(SocketWrapperBase<?> wrapper) {
        try {
            return (ReentrantLock) (Object) GET_LOCK.invokeExact(wrapper);
        } catch (Throwable t) {
            throw new IllegalStateException("SocketWrapperBase.getLock() failed", t);
        }
    }

    final java.nio.channels.SocketChannel channel;
    /** The connection's lock (Tomcat's {@code getLock()}): one thread runs the connection at a time. */
    final ReentrantLock lock;
    /** TLS: the session's attributes for Tomcat, set when the handshake completes. */
    private volatile SSLSupport sslSupport;

    TomcatSocketWrapper(java.nio.channels.SocketChannel channel, AbstractEndpoint<java.nio.channels.SocketChannel,?> endpoint,
            boolean unixSocket) {
        super(channel, endpoint);
        this.channel = channel;
        this.lock = lockOf(this);
        if (unixSocket) {
            // A Unix socket has no IP addresses: present the local host, as Tomcat's NIO connector does.
            localAddr = "127.0.0.1";
            localName = "localhost";
            localPort = 0;
            remoteAddr = "127.0.0.1";
            remoteHost = "localhost";
            remotePort = 0;
        }
    }

    /**
     * TLS: the handshake is done; gives Tomcat the SNI host name, the ALPN protocol ({@code h2} hands the connection to
     * Tomcat's HTTP/2 code; OpenSSL engines report it their own way) and the session's attributes.
     */
    void handshakeDone(TlsChannel tls, boolean negotiableProtocols, SSLImplementation implementation) {
        setSniHostName(this, tls.sniHostName());
        if (negotiableProtocols) {
            javax.net.ssl.SSLEngine engine = tls.engine();
            setNegotiatedProtocol(engine instanceof SSLUtil.ProtocolInfo ?
                    ((SSLUtil.ProtocolInfo) engine).getNegotiatedProtocol() : engine.getApplicationProtocol());
        }
        Map<String,List<String>> requested = new HashMap<>(4);
        requested.put(SSLSupport.REQUESTED_PROTOCOL_VERSIONS_KEY, tls.clientProtocols());
        requested.put(SSLSupport.REQUESTED_CIPHERS_KEY, tls.clientCipherNames());
        sslSupport = implementation.getSSLSupport(tls.engine().getSession(), requested);
    }

    // ------------------------------------------------------------------ addresses

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


    // ------------------------------------------------------------------ sendfile, TLS session

    @Override
    public SendfileDataBase createSendfileData(String filename, long pos, long length) {
        return new SendfileData(filename, pos, length);
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
}
