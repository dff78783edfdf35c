package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
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
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
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

    private static final String PASSWORD = "changeit";

    @TempDir
    static Path dir;
    static Path aKeystore;
    static Path bKeystore;
    static Path clientKeystore;
    static Path clientTruststore;
    static List<X509Certificate> serverCertificates = new ArrayList<>();

    @BeforeAll
    static void makeKeys() throws Exception {
        aKeystore = keystore("a", "CN=a.test", "SAN=dns:a.test,dns:localhost,ip:127.0.0.1");
        bKeystore = keystore("b", "CN=b.test", "SAN=dns:b.test");
        clientKeystore = keystore("client", "CN=client", "SAN=ip:127.0.0.1");
        serverCertificates.add(certificate(aKeystore));
        serverCertificates.add(certificate(bKeystore));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("client", certificate(clientKeystore));
        clientTruststore = dir.resolve("client-trust.p12");
        try (OutputStream out = Files.newOutputStream(clientTruststore)) {
            trust.store(out, PASSWORD.toCharArray());
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void blockingAndNonBlockingRequests(ConnectorUnderTest which) throws Exception {
        try (TlsServer server = new TlsServer(which, false, host("a.test", aKeystore));
                SSLSocket s = connect(server.port, clientContext(null), null)) {
            for (String kb : new String[] { "0.1", "10", "1024", "0.1" }) {
                RawHttp.Response r = RawHttp.exchange(s, RawHttp.get("/samples/size?kb=" + kb));
                assertEquals(200, r.status());
                assertEquals(Math.round(Double.parseDouble(kb) * 1024), r.body().length);
            }
            byte[] upload = new byte[512 * 1024];
            new Random(3).nextBytes(upload);
            for (String path : new String[] { "/samples/echo", "/samples/nbecho", "/samples/echo?flush=true" }) {
                OutputStream out = s.getOutputStream();
                out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream" +
                        "\r\nContent-Length: " + upload.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(upload);
                out.flush();
                RawHttp.Response r = RawHttp.read(s.getInputStream(), true);
                assertEquals(200, r.status(), path);
                assertArrayEquals(upload, r.body(), path);
            }
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
            try (SSLSocket s = connect(server.port, clientContext(null), "a.test")) {
                assertEquals("CN=a.test", subject(s));
                assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=1")).status());
            }
            try (SSLSocket s = connect(server.port, clientContext(clientKeystore), "b.test")) {
                assertEquals("CN=b.test", subject(s));
                assertEquals(200, RawHttp.exchange(s, RawHttp.get("/samples/size?kb=1")).status());
            }
            assertThrows(IOException.class, () -> {
                try (SSLSocket s = connect(server.port, clientContext(null), "b.test")) {
                    RawHttp.exchange(s, RawHttp.get("/samples/size?kb=1"));
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
        SSLHostConfig host = new SSLHostConfig();
        host.setHostName(name);
        SSLHostConfigCertificate certificate =
                new SSLHostConfigCertificate(host, SSLHostConfigCertificate.Type.UNDEFINED);
        certificate.setCertificateKeystoreFile(keystore.toString());
        certificate.setCertificateKeystorePassword(PASSWORD);
        certificate.setCertificateKeystoreType("PKCS12");
        host.addCertificate(certificate);
        return host;
    }

    static SSLSocket connect(int port, SSLContext ctx, String sni) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(30000);
        if (sni != null) {
            SSLParameters p = s.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName(sni)));
            s.setSSLParameters(p);
        }
        s.startHandshake();
        return s;
    }

    static String subject(SSLSocket s) throws IOException {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    static SSLContext clientContext(Path clientKeys) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        for (int i = 0; i < serverCertificates.size(); i++) {
            trust.setCertificateEntry("server" + i, serverCertificates.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientKeys != null) {
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(clientKeys), PASSWORD.toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    static Path keystore(String name, String dname, String san) throws Exception {
        Path file = dir.resolve(name + ".p12");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-alias", name,
                "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", dname, "-ext", san,
                "-validity", "30", "-keystore", file.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD,
                "-keypass", PASSWORD));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + new String(output, StandardCharsets.UTF_8));
        }
        return file;
    }

    static KeyStore load(Path file) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    static X509Certificate certificate(Path file) throws Exception {
        KeyStore ks = load(file);
        return (X509Certificate) ks.getCertificate(ks.aliases().nextElement());
    }
}
