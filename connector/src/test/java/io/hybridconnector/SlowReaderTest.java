package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

import org.junit.jupiter.api.Test;

/**
 * The write path against clients that read slowly through a small receive window: every byte arrives, the writer
 * waits for the kernel instead of spinning, the write deadline holds, and other connections are not delayed.
 */
class SlowReaderTest {

    static final String HYBRID = HybridHttp11Protocol.class.getName();
    static final int TEN_MB = 10 * 1024 * 1024;

    private static Socket smallWindowSocket(TestServer server) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
        s.setSoTimeout(20000);
        return s;
    }

    private static long workerCpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains("-worker-")) {
                long t = mx.getThreadCpuTime(info.getThreadId());
                sum += Math.max(0, t);
            }
        }
        return sum;
    }

    @Test
    void slowReaderGetsEveryByteWithoutSpinningOrExtraThreads() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1"); Socket s = smallWindowSocket(server)) {
            TestServer.get(server.connect(), "/size?kb=1"); // warm up
            long cpuBefore = workerCpuNanos();
            long start = System.nanoTime();
            TestServer.sendGet(s, "/size?bytes=" + TEN_MB);
            InputStream in = s.getInputStream();
            // Headers, then the body in 4 KB reads with a pause every 64 KB: about 160 pauses of 5 ms.
            TestServer.Response head = SlowReaderTestSupport.readHead(in);
            assertEquals(200, head.status());
            int[] maxThreads = new int[1];
            long total = SlowReaderTestSupport.readAlphanumericBody(in, TEN_MB, 64 * 1024, () -> {
                Thread.sleep(5);
                maxThreads[0] = Math.max(maxThreads[0], server.hybrid().getEndpointThreadCount());
            });
            long wallNanos = System.nanoTime() - start;
            long cpuNanos = workerCpuNanos() - cpuBefore;
            assertEquals(TEN_MB, total);
            // The writer waited for the kernel: its CPU is the body generation and copies, a fraction of the wall.
            assertTrue(cpuNanos < wallNanos / 2,
                    "writer burned " + cpuNanos / 1_000_000 + " ms CPU in " + wallNanos / 1_000_000 + " ms");
            // One loop leader, plus at most one thread that took the loop over while the writer waited.
            assertTrue(maxThreads[0] <= 3, "threads grew to " + maxThreads[0]);
            assertTrue(server.hybrid().getSocketWaits() > 0, "the writer never waited for writability");
            // The connection stays usable.
            assertEquals(102, TestServer.get(s, "/size?kb=0.1").body().length);
        }
    }

    @Test
    void writeDeadlineClosesAStalledReader() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "connectionTimeout", "1000");
                Socket s = smallWindowSocket(server)) {
            TestServer.sendGet(s, "/size?bytes=" + (20 * 1024 * 1024));
            Thread.sleep(3000); // never read: the server's write must give up after 1 s
            long start = System.nanoTime();
            long total = 0;
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    total += n;
                }
            } catch (SocketException reset) {
                // A reset is as good as a close.
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(total < 20 * 1024 * 1024, "all bytes arrived although the reader stalled past the deadline");
            assertTrue(millis < 2000, "the closed connection took " + millis + " ms to drain");
            // The thread that was writing is free again: a new request is served.
            try (Socket other = server.connect()) {
                assertEquals(102, TestServer.get(other, "/size?kb=0.1").body().length);
            }
        }
    }

    @Test
    void slowReaderDoesNotDelayOtherConnections() throws Exception {
        try (TestServer server = new TestServer(HYBRID, "loops", "1"); Socket slow = smallWindowSocket(server);
                Socket fast = server.connect()) {
            TestServer.get(fast, "/size?kb=0.1"); // warm up
            TestServer.sendGet(slow, "/size?bytes=" + (20 * 1024 * 1024));
            Thread.sleep(200); // the slow response has filled both socket buffers
            for (int i = 0; i < 10; i++) {
                long start = System.nanoTime();
                assertEquals(102, TestServer.get(fast, "/size?kb=0.1").body().length);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis < 100, "a 0.1 KB request took " + millis + " ms beside a slow reader");
            }
        }
    }
}
