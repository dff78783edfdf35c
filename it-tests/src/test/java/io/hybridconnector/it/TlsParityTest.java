package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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
import java.util.Map;
import java.util.Random;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import io.hybridconnector.TlsKeys;

import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TLS with Tomcat's {@code <SSLHostConfig>} configuration, the samples WAR unchanged, stock NIO and ours, on Tomcat
 * 10.1 and 11.0 (this source runs in both embedded modules): requests both ways (blocking and Servlet non-blocking
 * I/O), SNI, a required client certificate, ALPN {@code h2}, plain HTTP answered 400. Keys are made with
 * {@code keytool} at test time.
 */
class TlsParityTest {

    private static final String PASSWORD = TlsKeys.PASSWORD;

    @TempDir
    static Path dir;
    static Path aKeystore;
    static Path a2Keystore;
    static Path bKeystore;
    static Path clientKeystore;
    static Path clientTruststore;
    static TlsKeys keys;

    @BeforeAll
    static void makeKeys() throws Exception {
        keys = new TlsKeys(dir);
        aKeystore = keys.serverKeystore("a", "CN=a.test", "a.test", "localhost");
        a2Keystore = keys.serverKeystore("a2", "CN=a.test, OU=second", "a.test", "localhost");
        bKeystore = keys.serverKeystore("b", "CN=b.test", "b.test");
        clientKeystore = keys.keystore("client", "CN=client");
        clientTruststore = keys.truststore("client-trust", TlsKeys.certificate(clientKeystore));
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void blockingAndNonBlockingRequests(ConnectorUnderTest which) throws Exception {
        try (TlsServer server = new TlsServer(which, false, host("a.test", aKeystore))) {
            try (SSLSocket s = connect(server.port, clientContext(null), null)) {
                for (String kb : new String[] { "0.1", "10", "1024", "0.1" }) {
                    RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=" + kb));
                    assertEquals(200, r.status());
                    assertEquals(Math.round(Double.parseDouble(kb) * 1024), r.body().length);
                }
            }
            byte[] upload = new byte[512 * 1024];
            new Random(3).nextBytes(upload);
            // A connection per upload: on Tomcat 11 the samples' EchoServlet ends with "Stream closed" (closing the
            // request's stream after the response), and Tomcat then closes the connection, on stock NIO as on ours.
            for (String path : new String[] { "/samples/echo", "/samples/nbecho", "/samples/echo?flush=true" }) {
                uploadAndCompare(server.port, path, upload);
            }
        }
    }

    private static void uploadAndCompare(int port, String path, byte[] upload) throws Exception {
        try (SSLSocket s = connect(port, clientContext(null), null)) {
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream" +
                    "\r\nContent-Length: " + upload.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(upload);
            out.flush();
            RawHttp.Response r;
            try {
                r = RawHttp.read(s.getInputStream(), true);
            } catch (IOException e) {
                throw new IOException(path + ": " + e.getMessage(), e);
            }
            assertEquals(200, r.status(), path);
            assertArrayEquals(upload, r.body(), path);
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void sniAndClientCertificate(ConnectorUnderTest which) throws Exception {
        SSLHostConfig b = host("b.test", bKeystore);
        b.setCertificateVerification("required");
        b.setTruststoreFile(clientTruststore.toString());
        b.setTruststorePassword(PASSWORD);
        b.setTruststoreType("PKCS12");
        try (TlsServer server = new TlsServer(which, false, host("a.test", aKeystore), b)) {
            // The Host header names the SNI host: Tomcat refuses a request whose host maps to another SSLHostConfig.
            try (SSLSocket s = connect(server.port, clientContext(null), "a.test")) {
                assertEquals("CN=a.test", subject(s));
                assertEquals(200, RawHttp.exchange(s, getFrom("a.test")).status());
            }
            try (SSLSocket s = connect(server.port, clientContext(clientKeystore), "b.test")) {
                assertEquals("CN=b.test", subject(s));
                assertEquals(200, RawHttp.exchange(s, getFrom("b.test")).status());
            }
            assertThrows(IOException.class, () -> {
                try (SSLSocket s = connect(server.port, clientContext(null), "b.test")) {
                    RawHttp.exchange(s, getFrom("b.test"));
                }
            });
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void alpnH2AndPlainHttp(ConnectorUnderTest which) throws Exception {
        try (TlsServer server = new TlsServer(which, true, host("a.test", aKeystore))) {
            HttpClient client = HttpClient.newBuilder().sslContext(clientContext(null))
                    .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(
                    URI.create("https://localhost:" + server.port + "/samples/size?kb=100"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, r.statusCode());
            assertEquals(HttpClient.Version.HTTP_2, r.version());
            assertEquals(100 * 1024, r.body().length);
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", server.port), 5000);
                s.setSoTimeout(20000);
                RawHttp.send(s, RawHttp.get("/samples/size?kb=1"));
                String head = RawHttp.readHead(s.getInputStream());
                assertTrue(head.startsWith("HTTP/1.1 400"), head);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void reloadServesTheNewCertificateToNewConnections(ConnectorUnderTest which) throws Exception {
        Path live = dir.resolve("live-" + which + ".p12");
        Files.copy(aKeystore, live, StandardCopyOption.REPLACE_EXISTING);
        try (TlsServer server = new TlsServer(which, false, host("a.test", live));
                SSLSocket old = connect(server.port, clientContext(null), null)) {
            assertEquals("CN=a.test", subject(old));
            Files.copy(a2Keystore, live, StandardCopyOption.REPLACE_EXISTING);
            ((AbstractHttp11Protocol<?>) server.server.connector.getProtocolHandler()).reloadSslHostConfigs();
            try (SSLSocket fresh = connect(server.port, clientContext(null), null)) {
                assertEquals("CN=a.test,OU=second", subject(fresh));
                assertEquals(200, RawHttp.exchange(fresh, RawHttp.get("/samples/size?kb=1")).status());
            }
            assertEquals(200, RawHttp.exchange(old, RawHttp.get("/samples/size?kb=1")).status());
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The samples server with TLS on: SSLEnabled, the given host configurations (the first the default). */
    static final class TlsServer implements AutoCloseable {
        final SamplesServer server;
        final int port;

        TlsServer(ConnectorUnderTest which, boolean h2, SSLHostConfig... hosts) throws Exception {
            server = new SamplesServer(which, Map.of("SSLEnabled", "true", "defaultSSLHostConfigName",
                    hosts[0].getHostName()), connector -> {
                        for (SSLHostConfig host : hosts) {
                            connector.addSslHostConfig(host);
                        }
                        if (h2) {
                            connector.addUpgradeProtocol(new Http2Protocol());
                        }
                    });
            port = server.port;
        }

        @Override
        public void close() throws Exception {
            server.close();
        }
    }

    static SSLHostConfig host(String name, Path keystore) {
        return TlsKeys.host(name, keystore);
    }

    static SSLSocket connect(int port, SSLContext ctx, String sni) throws IOException {
        return TlsKeys.connect(port, ctx, sni, 30000);
    }

    static SSLContext clientContext(Path clientKeys) throws Exception {
        return keys.clientContext(clientKeys);
    }

    static String getFrom(String host) {
        return "GET /samples/size?kb=1 HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
    }

    static String subject(SSLSocket s) throws IOException {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }
}
