package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import io.hybridconnector.write.WriteStrategy;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS with Tomcat's own {@code <SSLHostConfig>} configuration, one body run against stock NIO and ours over real
 * sockets: requests small and large both ways on one keep-alive connection, pipelined requests, a static file, SNI
 * choosing the certificate, a required client certificate, reloading a certificate, ALPN {@code h2} with the JDK's
 * HTTP client, and plain HTTP on the TLS port. Key material is made at test time with {@code keytool}.
 */
class TlsTest {

    static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    static final String OURS = "io.hybridconnector.HybridHttp11Protocol";
    private static final int STATIC_SIZE = 3 * 1024 * 1024 + 17;

    @TempDir
    static Path dir;
    static TlsKeys keys;
    static Path aKeystore;
    static Path a2Keystore;
    static Path bKeystore;
    static Path clientKeystore;
    static Path clientTruststore;
    static byte[] staticFile;

    @BeforeAll
    static void makeKeys() throws Exception {
        keys = new TlsKeys(dir);
        aKeystore = keys.serverKeystore("a", "CN=a.test", "a.test", "localhost");
        a2Keystore = keys.serverKeystore("a2", "CN=a.test, OU=second", "a.test", "localhost");
        bKeystore = keys.serverKeystore("b", "CN=b.test", "b.test");
        clientKeystore = keys.keystore("client", "CN=client");
        clientTruststore = keys.truststore("client-trust", TlsKeys.certificate(clientKeystore));
        staticFile = new byte[STATIC_SIZE];
        new Random(7).nextBytes(staticFile);
    }

    static Stream<Arguments> models() {
        return Stream.concat(Stream.of(
                Arguments.of(NIO, new String[0]),
                Arguments.of(OURS, new String[0]),
                Arguments.of(OURS, new String[] { "threadModel", "sync" }),
                Arguments.of(OURS, new String[] { "threadModel", "reactor" })),
                // Every other write strategy (hybrid is the default above): a new one needs no change here.
                Stream.of(WriteStrategy.values()).filter(s -> s != WriteStrategy.HYBRID)
                        .map(s -> Arguments.of(OURS, new String[] { "writeStrategy", s.attributeValue() })));
    }

    // ------------------------------------------------------------------ tests

    @ParameterizedTest
    @MethodSource("models")
    void requestsOverOneKeepAliveConnection(String protocol, String[] attributes) throws Exception {
        try (Server server = new Server(protocol, false, attributes, host("a.test", aKeystore));
                SSLSocket s = connect(server.port, keys.clientContext(null), null)) {
            InputStream in = s.getInputStream();
            for (int i = 0; i < 3; i++) {
                TestServer.Response r = TestServer.get(s, "/size?kb=0.1");
                assertEquals(200, r.status());
                assertEquals(102, r.body().length);
            }
            // 1 MB: more than the socket takes at once, so the server's writes go partial.
            assertEquals(1024 * 1024, TestServer.get(s, "/size?kb=1024").body().length);
            // 16 MB (more than loopback socket buffers take) to a client that waits before reading: bytes wait
            // behind, plain and encrypted, for the loop or the writer.
            TestServer.sendGet(s, "/size?kb=16384");
            Thread.sleep(300);
            assertEquals(16 * 1024 * 1024, TestServer.readResponse(in).body().length);
            // 1 MB up and back: the body arrives in many records, read with blocking reads.
            byte[] upload = new byte[1024 * 1024];
            new Random(1).nextBytes(upload);
            OutputStream out = s.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\n" +
                    "Content-Length: " + upload.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(upload);
            out.flush();
            TestServer.Response echo = TestServer.readResponse(in);
            assertEquals(200, echo.status());
            assertArrayEquals(upload, echo.body());
            // Two requests in one record: the second waits decrypted in the TLS layer, and must not be missed.
            String small = "GET /size?kb=0.1 HTTP/1.1\r\nHost: localhost\r\n\r\n";
            out.write((small + small).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            assertEquals(102, TestServer.readResponse(in).body().length);
            assertEquals(102, TestServer.readResponse(in).body().length);
            // A static file (sendfile on plain connections; encrypted here).
            TestServer.Response file = TestServer.get(s, "/static.bin");
            assertEquals(200, file.status());
            assertArrayEquals(staticFile, file.body());
            // What the servlet sees.
            String info = TestServer.get(s, "/tls").text();
            assertTrue(info.contains("secure=true"), info);
            assertTrue(info.contains("scheme=https"), info);
            assertTrue(info.contains("cipher=TLS_"), info);
            assertTrue(info.contains("client=none"), info);
            assertEquals(102, TestServer.get(s, "/size?kb=0.1").body().length);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { NIO, OURS })
    void sniChoosesTheCertificate(String protocol) throws Exception {
        try (Server server = new Server(protocol, false, new String[0], host("a.test", aKeystore),
                host("b.test", bKeystore))) {
            assertEquals("CN=b.test", subjectAndGet(server.port, "b.test"));
            assertEquals("CN=a.test", subjectAndGet(server.port, "a.test"));
            assertEquals("CN=a.test", subjectAndGet(server.port, null)); // no SNI: the default host
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { NIO, OURS })
    void requiredClientCertificate(String protocol) throws Exception {
        SSLHostConfig host = host("a.test", aKeystore);
        host.setCertificateVerification("required");
        host.setTruststoreFile(clientTruststore.toString());
        host.setTruststorePassword(TlsKeys.PASSWORD);
        host.setTruststoreType("PKCS12");
        try (Server server = new Server(protocol, false, new String[0], host)) {
            try (SSLSocket s = connect(server.port, keys.clientContext(clientKeystore), null)) {
                String info = TestServer.get(s, "/tls").text();
                assertTrue(info.contains("client=CN=client"), info);
                assertEquals(102, TestServer.get(s, "/size?kb=0.1").body().length);
            }
            assertThrows(IOException.class, () -> {
                try (SSLSocket s = connect(server.port, keys.clientContext(null), null)) {
                    TestServer.get(s, "/tls");
                }
            }, "a client without a certificate was served");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { NIO, OURS })
    void reloadedCertificateForNewConnectionsOnly(String protocol) throws Exception {
        Path live = dir.resolve("live-" + protocol.hashCode() + ".p12");
        Files.copy(aKeystore, live, StandardCopyOption.REPLACE_EXISTING);
        X509Certificate first = TlsKeys.certificate(aKeystore);
        X509Certificate second = TlsKeys.certificate(a2Keystore);
        try (Server server = new Server(protocol, false, new String[0], host("a.test", live));
                SSLSocket old = connect(server.port, keys.clientContext(null), null)) {
            assertEquals(first, old.getSession().getPeerCertificates()[0]);
            assertEquals(200, TestServer.get(old, "/size?kb=0.1").status());

            Files.copy(a2Keystore, live, StandardCopyOption.REPLACE_EXISTING);
            ((AbstractHttp11Protocol<?>) server.connector.getProtocolHandler()).reloadSslHostConfigs();

            try (SSLSocket fresh = connect(server.port, keys.clientContext(null), null)) {
                assertEquals(second, fresh.getSession().getPeerCertificates()[0]);
                assertEquals(102, TestServer.get(fresh, "/size?kb=0.1").body().length);
            }
            assertEquals(102, TestServer.get(old, "/size?kb=0.1").body().length, "the old connection broke");
            assertEquals(first, old.getSession().getPeerCertificates()[0]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { NIO, OURS })
    void alpnNegotiatesHttp2(String protocol) throws Exception {
        try (Server server = new Server(protocol, true, new String[0], host("a.test", aKeystore))) {
            HttpClient client = HttpClient.newBuilder().sslContext(keys.clientContext(null))
                    .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
            for (String kb : new String[] { "1", "1024" }) {
                HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(
                        URI.create("https://localhost:" + server.port + "/size?kb=" + kb))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, r.statusCode());
                assertEquals(HttpClient.Version.HTTP_2, r.version(), protocol);
                assertEquals(Integer.parseInt(kb) * 1024, r.body().length);
            }
            HttpResponse<String> info = client.send(HttpRequest.newBuilder(
                    URI.create("https://localhost:" + server.port + "/tls")).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, info.version());
            assertTrue(info.body().contains("secure=true"), info.body());
        }
    }

    /** A foreign client: Debian's curl negotiates h2 by ALPN and fetches three URLs over one connection. */
    @ParameterizedTest
    @ValueSource(strings = { NIO, OURS })
    void curlTalksHttp2ByAlpn(String protocol) throws Exception {
        java.nio.file.Path curl = java.nio.file.Path.of("/usr/bin/curl");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(curl), "no " + curl);
        try (Server server = new Server(protocol, true, new String[0], host("a.test", aKeystore))) {
            String base = "https://localhost:" + server.port;
            Process p = new ProcessBuilder(curl.toString(), "-sk", "--http2", "-o", "/dev/null", "-o", "/dev/null",
                    "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{size_download} %{num_connects}\\n",
                    base + "/size?kb=1", base + "/size?kb=1024", base + "/tls").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "curl did not finish");
            String[] lines = out.strip().split("\n");
            assertEquals(3, lines.length, out);
            assertTrue(lines[0].startsWith("2 200 1024 1"), protocol + ": " + out);
            assertTrue(lines[1].startsWith("2 200 1048576 0"), protocol + " (second URL on the same connection): " + out);
            assertTrue(lines[2].startsWith("2 200 "), protocol + ": " + out);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { NIO, OURS })
    void plainHttpOnTheTlsPortGets400(String protocol) throws Exception {
        try (Server server = new Server(protocol, false, new String[0], host("a.test", aKeystore));
                Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
            s.setSoTimeout(20000);
            TestServer.Response r = TestServer.get(s, "/size?kb=0.1");
            assertEquals(400, r.status(), r.head());
            // ...and the connection is closed (the body of the 400, then end of stream; a reset counts too).
            try {
                s.getInputStream().readAllBytes();
            } catch (SocketTimeoutException e) {
                fail("the connection stayed open after the 400");
            } catch (IOException e) {
                // reset: closed
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    static SSLHostConfig host(String name, Path keystore) {
        return TlsKeys.host(name, keystore);
    }

    static SSLSocket connect(int port, SSLContext ctx, String sni) throws IOException {
        return TlsKeys.connect(port, ctx, sni, 20000);
    }

    private static String subjectAndGet(int port, String sni) throws Exception {
        try (SSLSocket s = connect(port, keys.clientContext(null), sni)) {
            X509Certificate peer = (X509Certificate) s.getSession().getPeerCertificates()[0];
            // The Host header names the SNI host: Tomcat answers 421 when they map to different SSLHostConfigs.
            OutputStream out = s.getOutputStream();
            out.write(("GET /size?kb=0.1 HTTP/1.1\r\nHost: " + (sni == null ? "localhost" : sni) + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            TestServer.Response r = TestServer.readResponse(s.getInputStream());
            assertEquals(200, r.status(), r.head());
            assertEquals(102, r.body().length);
            return peer.getSubjectX500Principal().getName();
        }
    }

    /** An embedded Tomcat with a TLS connector (its SSLHostConfigs, the first the default) and a few servlets. */
    static final class Server implements AutoCloseable {
        final Tomcat tomcat;
        final Connector connector;
        final int port;
        /** Tomcat's base directory and the static files, deleted by {@link #close}. */
        private final Path base;

        Server(String protocol, boolean h2, String[] attributes, SSLHostConfig... hosts) throws Exception {
            base = Files.createTempDirectory("tls-test");
            Path docs = Files.createDirectories(base.resolve("docs"));
            Files.write(docs.resolve("static.bin"), staticFile);
            tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            connector = new Connector(protocol);
            connector.setPort(0);
            assertTrue(connector.setProperty("SSLEnabled", "true"));
            assertTrue(connector.setProperty("defaultSSLHostConfigName", hosts[0].getHostName()));
            for (int i = 0; i < attributes.length; i += 2) {
                assertTrue(connector.setProperty(attributes[i], attributes[i + 1]), attributes[i]);
            }
            for (SSLHostConfig host : hosts) {
                connector.addSslHostConfig(host);
            }
            if (h2) {
                connector.addUpgradeProtocol(new Http2Protocol());
            }
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Context ctx = tomcat.addContext("", docs.toString());
            add(ctx, "size", new TestServer.SizeServlet(), "/size");
            add(ctx, "echo", new TestServer.EchoServlet(), "/echo");
            add(ctx, "tls", new TlsInfoServlet(), "/tls");
            add(ctx, "default", new DefaultServlet(), "/");
            tomcat.start();
            if (connector.getState() != LifecycleState.STARTED) {
                close();
                throw new IllegalStateException(protocol + " did not start: " + connector.getState());
            }
            port = connector.getLocalPort();
            assertNotEquals(-1, port);
        }

        private static void add(Context ctx, String name, HttpServlet servlet, String path) {
            Tomcat.addServlet(ctx, name, servlet);
            ctx.addServletMappingDecoded(path, name);
        }

        @Override
        public void close() throws Exception {
            try {
                tomcat.stop();
                tomcat.destroy();
            } finally {
                TempDirs.deleteRecursively(base);
            }
        }
    }

    /** What a servlet learns of the TLS connection. */
    static final class TlsInfoServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            X509Certificate[] chain = (X509Certificate[]) req.getAttribute("jakarta.servlet.request.X509Certificate");
            String body = "secure=" + req.isSecure() + "\nscheme=" + req.getScheme() + "\ncipher=" +
                    req.getAttribute("jakarta.servlet.request.cipher_suite") + "\nclient=" +
                    (chain == null ? "none" : chain[0].getSubjectX500Principal().getName()) + "\n";
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            resp.setContentType("text/plain");
            resp.setContentLength(bytes.length);
            resp.getOutputStream().write(bytes);
        }
    }
}
