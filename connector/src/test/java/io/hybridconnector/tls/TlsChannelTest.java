package io.hybridconnector.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS layer alone, over a real non-blocking socket and a JDK client: the handshake never waits, a write returns
 * the plaintext it consumed and keeps the encrypted rest as pending output, a read hands out decrypted bytes that did
 * not fit the caller's buffer without touching the socket.
 */
class TlsChannelTest {

    @TempDir
    Path dir;

    @Test
    void nonBlockingHandshakeWritesAndReads() throws Exception {
        Path keystore = dir.resolve("server.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=server",
                "-validity", "2", "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", "changeit",
                "-keypass", "changeit").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool failed");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext server = SSLContext.getInstance("TLS");
        server.init(kmf.getKeyManagers(), null, null);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);

        int size = 32 * 1024 * 1024; // more than loopback socket buffers take
        CountDownLatch startReading = new CountDownLatch(1);
        CountDownLatch serverDone = new CountDownLatch(1);
        List<String> seen = new ArrayList<>();
        try (ServerSocketChannel ssc = ServerSocketChannel.open();
                Selector selector = Selector.open()) {
            ssc.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) ssc.getLocalAddress()).getPort();
            CompletableFuture<Long> clientSide = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port)) {
                    s.setSoTimeout(20000);
                    s.startHandshake();
                    startReading.await();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    long got = 0;
                    while (got < size) {
                        int n = in.read(buf);
                        if (n < 0) {
                            break;
                        }
                        got += n;
                    }
                    OutputStream out = s.getOutputStream();
                    out.write("hello tls world".getBytes(StandardCharsets.US_ASCII)); // one record
                    out.flush();
                    serverDone.await(20, TimeUnit.SECONDS); // no close_notify behind the record while it is read
                    return got;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            SocketChannel sc = ssc.accept();
            sc.configureBlocking(false);
            TlsChannel tls = new TlsChannel(sc, hello -> {
                SSLEngine e = server.createSSLEngine();
                e.setUseClientMode(false);
                return e;
            }, new TlsBufferPool(16), 65536);
            SelectionKey key = sc.register(selector, 0);
            int ops;
            while ((ops = tls.handshake()) != 0) {
                key.interestOps(ops);
                assertTrue(selector.select(10000) > 0, "handshake stalled waiting for " + ops);
                selector.selectedKeys().clear();
            }
            assertTrue(tls.isHandshakeDone());

            // The client does not read yet: writes go partial, then return 0 with encrypted bytes held.
            ByteBuffer body = ByteBuffer.allocate(size);
            long consumed = 0;
            long n;
            while ((n = tls.write(body)) > 0) {
                consumed += n;
            }
            assertTrue(body.hasRemaining(), "the kernel took it all at once");
            assertEquals(consumed, body.position());
            assertTrue(tls.hasPendingOutput(), "a write returned 0 but holds nothing");

            startReading.countDown();
            key.interestOps(SelectionKey.OP_WRITE);
            while (body.hasRemaining() || tls.hasPendingOutput()) {
                assertTrue(selector.select(10000) > 0, "writes stalled");
                selector.selectedKeys().clear();
                if (tls.hasPendingOutput() && !body.hasRemaining()) {
                    tls.flushPendingOutput();
                } else {
                    tls.write(body);
                }
            }

            // One record of 15 bytes read through a 5-byte buffer: the rest comes from the layer, no syscall.
            key.interestOps(SelectionKey.OP_READ);
            ByteBuffer small = ByteBuffer.allocate(5);
            int r = 0;
            for (int i = 0; i < 100 && r == 0; i++) {
                r = tls.read(small);
                if (r == 0) {
                    selector.select(1000);
                    selector.selectedKeys().clear();
                }
            }
            assertEquals(5, r);
            seen.add(new String(small.array(), 0, 5, StandardCharsets.US_ASCII));
            assertTrue(tls.hasBufferedInput());
            for (int i = 0; i < 2; i++) {
                small.clear();
                assertEquals(5, tls.read(small));
                seen.add(new String(small.array(), 0, 5, StandardCharsets.US_ASCII));
            }
            assertFalse(tls.hasBufferedInput());
            assertEquals(List.of("hello", " tls ", "world"), seen);
            tls.releaseBuffers();
            tls.closeOutbound(); // close_notify: the client's close (TLS 1.3) waits for it
            serverDone.countDown();
            assertEquals(size, (long) clientSide.get(20, TimeUnit.SECONDS));
            tls.close();
            sc.close();
        }
    }
}
