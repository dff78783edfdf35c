package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.loop.LoopThreadPool;
import io.hybridconnector.loop.TomcatExecutorView;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Descriptors and pooled memory come back after requests whose threads waited for their sockets, after the pool
 * shrank, and after clients that reset mid-request and mid-response (issue 16: each exited pool thread left an epoll,
 * an eventfd and a socket open; resets left descriptors). One test body for stock NIO and ours.
 */
class DescriptorLeakTest {

    static final String STOCK = "org.apache.coyote.http11.Http11NioProtocol";
    static final String HYBRID = "io.hybridconnector.HybridHttp11Protocol";

    @ParameterizedTest
    @ValueSource(strings = { STOCK, HYBRID })
    void descriptorsStayFlatOverThreadExitsAndResets(String protocol) throws Exception {
        try (TestServer server = new TestServer(protocol, "connectionTimeout", "5000")) {
            shrinkPoolFast(server);
            TestServer.get(server.connect(), "/size?kb=1").status(); // the JDK's and Tomcat's lazy descriptors
            slowUploads(server, 20);
            int baseThreads = awaitPoolShrunk(server);
            int before = Descriptors.count();
            String kindsBefore = Descriptors.byKind().toString();
            for (int burst = 0; burst < 5; burst++) {
                slowUploads(server, 40);
                awaitPoolShrunk(server);
            }
            int afterBursts = Descriptors.awaitAtMost(before + 5, 3000);
            for (int batch = 0; batch < 20; batch++) {
                resetsMidRequest(server, 50);
            }
            for (int batch = 0; batch < 20; batch++) {
                resetsMidResponse(server, 25);
            }
            awaitPoolShrunk(server);
            int after = Descriptors.awaitAtMost(before + 5, 5000);
            String report = protocol + ": " + before + " descriptors " + kindsBefore + ", after 5 bursts of 40 " +
                    "slow uploads and pool shrinks " + afterBursts + ", after 1,000 resets mid-request and 500 " +
                    "mid-response " + after + " " + Descriptors.byKind() + " (threads " + baseThreads + ")";
            System.out.println(report);
            assertTrue(afterBursts <= before + 5, report);
            assertTrue(after <= before + 5, report);
            if (protocol.equals(HYBRID)) {
                awaitNoBytesBehind(server);
                assertEquals(0, server.hybrid().writeCounters().getWriteBehindBytes(), "write-behind memory held");
            }
            assertEquals(200, TestServer.get(server.connect(), "/size?kb=1").status());
        }
    }

    static void shrinkPoolFast(TestServer server) {
        Object executor = poolOrExecutor(server);
        if (executor instanceof LoopThreadPool) {
            ((LoopThreadPool) executor).setIdleTimeout(50);
        } else {
            ((org.apache.tomcat.util.threads.ThreadPoolExecutor) executor).setKeepAliveTime(50, TimeUnit.MILLISECONDS);
        }
    }

    /** Our loop pool (the protocol shows it as Tomcat's executor type), or stock's executor. */
    static Object poolOrExecutor(TestServer server) {
        Object executor = server.connector.getProtocolHandler().getExecutor();
        return executor instanceof TomcatExecutorView ? ((TomcatExecutorView) executor).pool() : executor;
    }

    /** Waits until the pool stopped shrinking; returns its size. */
    static int awaitPoolShrunk(TestServer server) throws Exception {
        Object executor = poolOrExecutor(server);
        int last = -1;
        int stable = 0;
        for (int i = 0; i < 200 && stable < 5; i++) {
            Thread.sleep(50);
            int n = executor instanceof LoopThreadPool ? ((LoopThreadPool) executor).getPoolSize() :
                    ((org.apache.tomcat.util.threads.ThreadPoolExecutor) executor).getPoolSize();
            stable = n == last ? stable + 1 : 0;
            last = n;
        }
        return last;
    }

    static void awaitNoBytesBehind(TestServer server) throws Exception {
        for (int i = 0; i < 100 && server.hybrid().writeCounters().getWriteBehindBytes() > 0; i++) {
            Thread.sleep(50);
        }
    }

    /** {@code n} concurrent uploads whose bodies arrive in two parts 150 ms apart: each request's thread waits. */
    static void slowUploads(TestServer server, int n) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(n);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                done.add(clients.submit(() -> {
                    try (Socket s = server.connect()) {
                        OutputStream out = s.getOutputStream();
                        out.write(("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n12345")
                                .getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        Thread.sleep(150);
                        out.write("67890".getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        TestServer.Response r = TestServer.readResponse(s.getInputStream());
                        assertEquals("1234567890", r.text());
                        return r.status();
                    }
                }));
            }
            for (Future<Integer> f : done) {
                assertEquals(200, f.get(30, TimeUnit.SECONDS));
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /** {@code n} clients send a request head and half a body, then reset (RST, no FIN) while their threads wait. */
    static void resetsMidRequest(TestServer server, int n) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Socket s = server.connect();
                sockets.add(s);
                s.getOutputStream().write(("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n" +
                        "half a body").getBytes(StandardCharsets.ISO_8859_1));
            }
            Thread.sleep(30);
        } finally {
            reset(sockets);
        }
    }

    /** {@code n} clients ask for 4 MB through a small window, read the head, then reset with bytes still to come. */
    static void resetsMidResponse(TestServer server, int n) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Socket s = new Socket();
                sockets.add(s);
                s.setReceiveBufferSize(4096);
                s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
                s.setSoTimeout(20000);
                TestServer.sendGet(s, "/size?bytes=" + (4 * 1024 * 1024));
            }
            for (Socket s : sockets) {
                InputStream in = s.getInputStream();
                SlowReaderTestSupport.readHead(in);
                in.readNBytes(1024);
            }
            Thread.sleep(30);
        } finally {
            reset(sockets);
        }
    }

    static void reset(List<Socket> sockets) throws Exception {
        for (Socket s : sockets) {
            s.setSoLinger(true, 0);
            s.close();
        }
    }
}
