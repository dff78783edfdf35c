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
