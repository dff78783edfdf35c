package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import org.apache.catalina.util.ServerInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * HTTPS with Boot's own {@code server.ssl.*} properties, on the Tomcat release the Boot line brings (the sample pins
 * none): Boot 3.5.7 brings Tomcat 10.1.48, where a connector compiled against 10.1.59 once failed every TLS
 * connection with {@code NoSuchMethodError} (SocketWrapperBase.setSniHostName). Stock NIO and ours in the same body.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsTest {

    private Path keystore;

    @BeforeAll
    void makeKeystore() throws Exception {
        // In java.io.tmpdir, which surefire points into target/ (RunningApp makes it; not made yet before a start).
        Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        keystore = Files.createTempFile("sample-tls", ".p12");
        Files.delete(keystore);
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "sample", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost",
                "-validity", "2", "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", "changeit",
                "-keypass", "changeit").redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
    }

    @AfterAll
    void deleteKeystore() throws IOException {
        if (keystore != null) {
            Files.deleteIfExists(keystore);
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorKind.class)
    void httpsOnTheTomcatBootBrings(ConnectorKind kind) throws Exception {
        System.out.println(kind + " over TLS on " + ServerInfo.getServerInfo());
        try (RunningApp app = RunningApp.start(kind, "--server.ssl.key-store=" + keystore,
                "--server.ssl.key-store-password=changeit", "--server.ssl.key-store-type=PKCS12")) {
            HttpClient client = HttpClient.newBuilder().sslContext(trustingEveryServer())
                    .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            URI uri = URI.create("https://localhost:" + app.port + "/hi");
            for (int i = 0; i < 3; i++) { // a fresh connection and keep-alive requests on it
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode());
                assertEquals("hi", r.body());
            }
            assertEquals(kind.protocolClass, app.protocol().getClass().getName());
        }
    }

    private static SSLContext trustingEveryServer() throws Exception {
        X509TrustManager all = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {all}, new SecureRandom());
        return context;
    }
}
