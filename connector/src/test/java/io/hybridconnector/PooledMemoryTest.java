package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.net.ssl.SSLSocket;

import io.hybridconnector.write.WriteCounters;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every close path gives pooled write-behind memory back (issue 16: {@code doClose} did only when it found the
 * connection's lock free, so a close while another thread held the connection left the memory out of the pool for
 * good): after resets mid-response with bytes behind, and after a stop while writers wait for their sockets, the bytes
 * behind are back to 0.
 */
class PooledMemoryTest {

    static final String HYBRID = HybridHttp11Protocol.class.getName();

    /** The TLS keys of the TLS case; JUnit removes it after the class. */
    @TempDir
    static Path keys;

    @BeforeAll
    static void makeKeys() throws Exception {
        TlsTest.dir = keys;
        TlsTest.makeKeys();
    }

    private static Socket stalledReader(TestServer server, int bytes) throws Exception {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
        s.setSoTimeout(20000);
        TestServer.sendGet(s, "/size?bytes=" + bytes);
        return s;
    }

    private static long awaitBytesBehind(WriteCounters c, long atMost) throws Exception {
        for (int i = 0; i < 200 && c.getWriteBehindBytes() > atMost; i++) {
            Thread.sleep(25);
        }
        return c.getWriteBehindBytes();
    }

    @Test
    void resetsMidResponseGiveWriteBehindMemoryBack() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "connectionTimeout", "20000")) {
            WriteCounters c = server.hybrid().writeCounters();
            long peak = 0;
            for (int round = 0; round < 10; round++) {
                List<Socket> sockets = new ArrayList<>();
                // 200 KB: the rest waits behind for the loop; 4 MB: the writer also waits past the bound.
                for (int i = 0; i < 20; i++) {
                    sockets.add(stalledReader(server, i % 2 == 0 ? 200 * 1024 : 4 * 1024 * 1024));
                }
                for (Socket s : sockets) {
                    InputStream in = s.getInputStream();
                    SlowReaderTestSupport.readHead(in);
                    in.readNBytes(1024);
                }
                Thread.sleep(50);
                peak = Math.max(peak, c.getWriteBehindBytes());
                DescriptorLeakTest.reset(sockets);
            }
            assertTrue(peak > 0, "no bytes were ever behind: the test tests nothing");
            assertEquals(0, awaitBytesBehind(c, 0), "write-behind bytes held after 200 resets mid-response (peak " +
                    peak + ")");
            assertEquals(200, TestServer.get(server.connect(), "/size?kb=1").status());
        }
    }

    /**
     * The read and write buffers 100 concurrent requests took (8 + 64 KB of direct memory each) are freed once no
     * request has needed them for the pool's sweep interval (issue 16: the pool kept every pair it ever made, for
     * good; after the soak 1 MB stayed, and a burst of blocked requests kept 72 KB each). Shortened to 300 ms here;
     * 30 s by default.
     */
    @Test
    void socketBuffersOfABurstAreFreedOnceIdle() throws Exception {
        System.setProperty("io.hybridconnector.socketBufferIdleMillis", "300");
        try (TestServer server = new TestServer(HYBRID, "connectionTimeout", "20000")) {
            System.clearProperty("io.hybridconnector.socketBufferIdleMillis");
            assertEquals(200, TestServer.get(server.connect(), "/size?kb=1").status());
            long start = directMemoryUsed();
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                Socket s = server.connect();
                TestServer.sendGet(s, "/block?ms=500"); // each request holds its pair while it sleeps
                sockets.add(s);
            }
            for (Socket s : sockets) {
                assertEquals(200, TestServer.readResponse(s.getInputStream()).status());
                s.close();
            }
            long peak = directMemoryUsed();
            long pairs = 100 * (8 + 64) * 1024L;
            // The warm-up request's pair may serve one of the burst: 99 new pairs at least (the loop reads each new
            // request into its direct read buffer, so no temporary JDK buffer adds to them any more).
            assertTrue(peak - start >= pairs * 99 / 100, "the burst took only " + (peak - start) / 1024
                    + " KB of direct memory: the test tests nothing");
            // What may stay: the JDK's per-thread cache of temporary direct buffers (about 16 KB for each thread that
            // read a request into Tomcat's heap buffer), freed as the thread exits after 60 s idle, as on stock NIO.
            long atLeast = pairs * 9 / 10; // a pair or two may be made before the burst's first sweep, or still in use
            long freed = 0;
            for (int i = 0; i < 100 && freed < atLeast; i++) {
                Thread.sleep(50);
                freed = peak - directMemoryUsed();
            }
            assertTrue(freed >= atLeast, "5 s after a burst of 100 requests, " + freed / 1024 + " KB of direct memory "
                    + "freed of the " + pairs / 1024 + " KB its read and write buffers took; pairs still pooled: "
                    + server.hybrid().getPooledSocketBuffers());
            assertEquals(0, server.hybrid().getPooledSocketBuffers());
            assertEquals(200, TestServer.get(server.connect(), "/size?kb=1").status());
        } finally {
            System.clearProperty("io.hybridconnector.socketBufferIdleMillis");
        }
    }

    private static long directMemoryUsed() {
        for (java.lang.management.BufferPoolMXBean pool
                : java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new IllegalStateException("no direct buffer pool");
    }

    @Test
    void stopWhileWritersWaitGivesWriteBehindMemoryBack() throws Exception {
        TestServer server = new TestServer(HYBRID, "connectionTimeout", "30000");
        List<Socket> sockets = new ArrayList<>();
        WriteCounters c = server.hybrid().writeCounters();
        try {
            for (int i = 0; i < 8; i++) {
                sockets.add(stalledReader(server, 8 * 1024 * 1024));
            }
            for (int i = 0; i < 200 && c.getParkedWriters() < 8; i++) {
                Thread.sleep(25);
            }
            assertEquals(8, c.getParkedWriters(), "writers waiting for their sockets");
            assertTrue(c.getWriteBehindBytes() > 0);
            long held = c.getWriteBehindBytes();
            long start = System.nanoTime();
            server.tomcat.stop();
            long stopMillis = (System.nanoTime() - start) / 1_000_000;
            long left = awaitBytesBehind(c, 0);
            assertEquals(0, left, "write-behind bytes held after a stop with 8 writers waiting (" + held +
                    " before the stop)");
            assertTrue(stopMillis < 10_000, "the stop took " + stopMillis + " ms");
        } finally {
            DescriptorLeakTest.reset(sockets);
            server.close(); // stop (again: a no-op once stopped) and destroy
        }
    }

    /** The same over TLS: plaintext behind, records held by the TLS layer, its record buffers. */
    @Test
    void stopWhileTlsWritersWaitGivesWriteBehindMemoryBack() throws Exception {
        TlsTest.Server server = new TlsTest.Server(HYBRID, false, new String[] { "connectionTimeout", "30000" },
                TlsTest.host("a.test", TlsTest.aKeystore));
        List<Socket> sockets = new ArrayList<>();
        WriteCounters c = ((HybridHttp11Protocol) server.connector.getProtocolHandler()).writeCounters();
        try {
            for (int i = 0; i < 4; i++) {
                Socket plain = new Socket();
                plain.setReceiveBufferSize(4096);
                plain.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
                SSLSocket s = (SSLSocket) TlsTest.keys.clientContext(null).getSocketFactory()
                        .createSocket(plain, "localhost", server.port, true);
                s.setSoTimeout(20000);
                s.startHandshake();
                sockets.add(s);
                TestServer.sendGet(s, "/size?bytes=" + (8 * 1024 * 1024));
            }
            for (int i = 0; i < 200 && c.getParkedWriters() < 4; i++) {
                Thread.sleep(25);
            }
            assertEquals(4, c.getParkedWriters(), "writers waiting for their sockets");
            long held = c.getWriteBehindBytes();
            assertTrue(held > 0);
            server.tomcat.stop();
            assertEquals(0, awaitBytesBehind(c, 0), "write-behind bytes held after a stop with 4 TLS writers " +
                    "waiting (" + held + " before the stop)");
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            server.close();
        }
    }
}
