package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One test body, both connectors: what HTTP/1.1 users rely on behaves the same on stock NIO and on ours, with the
 * samples WAR deployed unchanged.
 */
class Http11ParityTest {

    private static final Map<ConnectorUnderTest,SamplesServer> SERVERS = new EnumMap<>(ConnectorUnderTest.class);

    static synchronized SamplesServer server(ConnectorUnderTest which) throws Exception {
        SamplesServer s = SERVERS.get(which);
        if (s == null) {
            s = new SamplesServer(which);
            SERVERS.put(which, s);
        }
        return s;
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (SamplesServer s : SERVERS.values()) {
            s.close();
        }
        SERVERS.clear();
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void sizesOfThePapersOnOneKeepAliveConnection(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            for (String kb : new String[] { "0.1", "10", "100", "0.1", "100", "10" }) {
                RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=" + kb));
                assertEquals(200, r.status());
                assertEquals(Math.round(Double.parseDouble(kb) * 1024), r.body().length);
                for (byte b : r.body()) {
                    assertTrue(Character.isLetterOrDigit(b));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void aFixedBodyIsTheSameEveryTime(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            byte[] first = RawHttp.exchange(s, RawHttp.get("/samples/fixed?kb=100")).body();
            assertEquals(102_400, first.length);
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(first, RawHttp.exchange(s, RawHttp.get("/samples/fixed?kb=100")).body());
            }
            assertEquals(400, RawHttp.exchange(s, RawHttp.get("/samples/fixed?kb=x")).status());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void pipelinedRequestsAnswerInOrder(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            RawHttp.send(s, RawHttp.get("/samples/block?ms=30") + RawHttp.get("/samples/size?kb=0.1") +
                    RawHttp.get("/samples/block?ms=1"));
            InputStream in = s.getInputStream();
            assertEquals("slept 30", RawHttp.read(in, true).text());
            assertEquals(102, RawHttp.read(in, true).body().length);
            assertEquals("slept 1", RawHttp.read(in, true).text());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void chunkedRequestAndChunkedResponse(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            String request = "POST /samples/echo?flush=true HTTP/1.1\r\nHost: localhost\r\n" +
                    "Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n" +
                    "5\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\n\r\n";
            RawHttp.Response r = RawHttp.exchange(s, request);
            assertEquals(200, r.status());
            assertEquals("chunked", r.header("Transfer-Encoding"));
            assertEquals("hello world", r.text());
            // The connection is still usable afterwards.
            assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1")).status());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void hundredMegabyteUploadArrivesIntact(ConnectorUnderTest which) throws Exception {
        long size = 100L * 1024 * 1024;
        try (Socket s = server(which).connect()) {
            RawHttp.send(s, "POST /samples/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + size +
                    "\r\nContent-Type: application/octet-stream\r\n\r\n");
            OutputStream out = s.getOutputStream();
            CRC32 crc = new CRC32();
            SplittableRandom random = new SplittableRandom(7);
            byte[] chunk = new byte[64 * 1024];
            for (long sent = 0; sent < size; sent += chunk.length) {
                for (int i = 0; i < chunk.length; i++) {
                    chunk[i] = (byte) random.nextInt(256);
                }
                crc.update(chunk);
                out.write(chunk);
            }
            out.flush();
            RawHttp.Response r = RawHttp.read(s.getInputStream(), true);
            assertEquals(200, r.status());
            assertEquals(String.format("bytes=%d crc32=%08x", size, crc.getValue()), r.text());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void hundredMegabyteDownloadArrivesIntact(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            RawHttp.send(s, RawHttp.get("/samples/download?bytes=" + (100 * 1024 * 1024) + "&seed=11"));
            RawHttp.Response r = RawHttp.read(s.getInputStream(), false);
            assertEquals(200, r.status());
            assertEquals(100L * 1024 * 1024, r.length());
            assertEquals(r.header("X-CRC32"), String.format("%08x", r.crc()));
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void expectContinueGetsInterimResponseBeforeTheBody(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            RawHttp.send(s, "POST /samples/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n" +
                    "Expect: 100-continue\r\n\r\n");
            String interim = RawHttp.readHead(s.getInputStream());
            assertTrue(interim.startsWith("HTTP/1.1 100"), interim);
            RawHttp.send(s, "abcde");
            RawHttp.Response r = RawHttp.read(s.getInputStream(), true);
            assertTrue(r.text().startsWith("bytes=5 "), r.text());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void http10AndConnectionCloseCloseTheConnection(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            RawHttp.Response r = RawHttp.exchange(s, "GET /samples/size?kb=0.1 HTTP/1.0\r\n\r\n");
            assertEquals(200, r.status());
            assertEquals(102, r.body().length);
            assertTrue(RawHttp.closedByPeer(s));
        }
        try (Socket s = server(which).connect()) {
            RawHttp.Response r = RawHttp.exchange(s,
                    "GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertEquals(200, r.status());
            assertTrue(RawHttp.closedByPeer(s));
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void malformedRequestGets400AndAClose(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            RawHttp.Response r = RawHttp.exchange(s, "GET /samples/size?kb=0.1 HTTP/1.1 extra\r\nHost: x\r\n\r\n");
            assertEquals(400, r.status());
            assertTrue(RawHttp.closedByPeer(s));
        }
        try (Socket s = server(which).connect()) {
            RawHttp.Response r = RawHttp.exchange(s, "G\u0001T / HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(400, r.status());
            assertTrue(RawHttp.closedByPeer(s));
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void oversizedHeaderGets400(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            String big = "x".repeat(20 * 1024);
            RawHttp.Response r = RawHttp.exchange(s,
                    "GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: localhost\r\nX-Big: " + big + "\r\n\r\n");
            assertEquals(400, r.status());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void badParameterGetsACleanBadRequest(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=abc"));
            assertEquals(400, r.status());
            assertTrue(r.text().contains("kb"), r.text());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void servletAsyncAndNonBlockingIo(ConnectorUnderTest which) throws Exception {
        try (Socket s = server(which).connect()) {
            for (int i = 0; i < 3; i++) {
                assertEquals("async 20", RawHttp.exchange(s, RawHttp.get("/samples/async?ms=20")).text());
                assertEquals("async 0", RawHttp.exchange(s, RawHttp.get("/samples/async?ms=0")).text());
            }
            RawHttp.Response timeout = RawHttp.exchange(s, RawHttp.get("/samples/async?ms=5000&timeoutMs=200"));
            assertEquals(503, timeout.status());
        }
        byte[] body = new byte[1024 * 1024];
        new SplittableRandom(3).nextBytes(body);
        try (Socket s = server(which).connect()) {
            RawHttp.send(s, "POST /samples/nbecho HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + body.length +
                    "\r\n\r\n");
            OutputStream out = s.getOutputStream();
            for (int off = 0; off < body.length; off += 16384) {
                out.write(body, off, 16384);
                out.flush();
            }
            RawHttp.Response r = RawHttp.read(s.getInputStream(), true);
            assertEquals(200, r.status());
            assertTrue(java.util.Arrays.equals(body, r.body()), "non-blocking echo differs");
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void accessLogRecordsStatusAndBytes(ConnectorUnderTest which) throws Exception {
        SamplesServer server = server(which);
        try (Socket s = server.connect()) {
            RawHttp.exchange(s, RawHttp.get("/samples/size?kb=10&log=" + which));
            RawHttp.exchange(s, RawHttp.get("/samples/size?kb=oops&log=" + which));
        }
        String log = "";
        for (int i = 0; i < 50 && !log.contains("kb=oops&log=" + which); i++) {
            Thread.sleep(20);
            try (Stream<Path> files = Files.list(server.accessLogDir)) {
                log = files.map(p -> {
                    try {
                        return Files.readString(p, StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        return "";
                    }
                }).reduce("", String::concat);
            }
        }
        assertTrue(log.contains("GET /samples/size?kb=10&log=" + which + " HTTP/1.1 200 10240"), log);
        assertTrue(log.contains("kb=oops&log=" + which + " HTTP/1.1 400"), log);
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void threadPoolAndRequestProcessorMBeansShowTrueNumbers(ConnectorUnderTest which) throws Exception {
        SamplesServer server = server(which);
        try (Socket s = server.connect()) {
            RawHttp.exchange(s, RawHttp.get("/samples/size?kb=0.1"));
        }
        javax.management.MBeanServer mbs = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        // Tomcat names the beans at init, before a port-0 connector knows its port: match the name prefix.
        String prefix = which == ConnectorUnderTest.HYBRID ? "\"http-hybrid-" : "\"http-nio-";
        if (server.tls) {
            // Over TLS: https-hybrid-, and JSSE on stock NIO: https-jsse-nio-.
            prefix = which == ConnectorUnderTest.HYBRID ? "\"https-hybrid-" : "\"https-jsse-nio-";
        }
        assertNotNull(server.connector.getProtocolHandler());
        var pools = mbs.queryNames(new javax.management.ObjectName("Tomcat:type=ThreadPool,name=*"), null);
        boolean found = false;
        for (var on : pools) {
            if (on.getKeyProperty("name").startsWith(prefix)) {
                found = true;
                int count = (Integer) mbs.getAttribute(on, "currentThreadCount");
                int busy = (Integer) mbs.getAttribute(on, "currentThreadsBusy");
                assertTrue(count >= 1, "currentThreadCount " + count);
                assertTrue(busy >= 0 && busy <= count, "busy " + busy + " of " + count);
            }
        }
        assertTrue(found, "no ThreadPool MBean named " + prefix + "... in " + pools);
        var processors = mbs.queryNames(new javax.management.ObjectName("Tomcat:type=GlobalRequestProcessor,*"),
                null);
        long requests = 0;
        for (var on : processors) {
            if (on.getKeyProperty("name").startsWith(prefix)) {
                requests = ((Number) mbs.getAttribute(on, "requestCount")).longValue();
            }
        }
        assertTrue(requests >= 1, "GlobalRequestProcessor requestCount " + requests);
        assertFalse(pools.isEmpty());
    }
}
