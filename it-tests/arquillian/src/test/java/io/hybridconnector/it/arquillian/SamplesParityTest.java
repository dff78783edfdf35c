package io.hybridconnector.it.arquillian;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.CRC32;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The samples WAR, deployed unchanged by Arquillian into embedded Tomcat 10.1, and one test body per behaviour run
 * through stock NIO and through ours: the same deployment, the same JVM, only the connector differs. Runs as a
 * client ({@code testable = false}), so nothing is added to the WAR.
 */
@ExtendWith(ArquillianExtension.class)
class SamplesParityTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @ArquillianResource
    private ConnectorUrls urls;

    @Deployment(testable = false)
    static WebArchive samples() {
        // The WAR exactly as servlet-samples built it; its name (samples.war) makes the context path /samples.
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("samples.war")));
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void servesThePapersSizes(ConnectorUnderTest connector) throws Exception {
        for (String kb : List.of("0.1", "10", "100")) {
            HttpResponse<byte[]> r = get(connector, "size?kb=" + kb);
            int expected = (int) Math.round(Double.parseDouble(kb) * 1024);
            assertEquals(200, r.statusCode(), kb);
            assertEquals(expected, r.headers().firstValueAsLong("Content-Length").orElse(-1), kb);
            assertEquals(expected, r.body().length, kb);
            assertTrue(new String(r.body(), StandardCharsets.US_ASCII).chars().allMatch(Character::isLetterOrDigit));
        }
    }

    /** Five requests on one socket; each response must leave it open (no Connection: close, no EOF). */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void keepsTheConnectionAlive(ConnectorUnderTest connector) throws Exception {
        URI base = urls.of(connector);
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            for (int i = 0; i < 5; i++) {
                out.write(("GET " + base.getPath() + "size?kb=10 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertTrue(line(in).startsWith("HTTP/1.1 200"), "request " + i);
                long length = -1;
                for (String h = line(in); !h.isEmpty(); h = line(in)) {
                    String lower = h.toLowerCase(Locale.ROOT);
                    assertFalse(lower.startsWith("connection:") && lower.contains("close"), "request " + i + ": " + h);
                    if (lower.startsWith("content-length:")) {
                        length = Long.parseLong(h.substring(15).trim());
                    }
                }
                assertEquals(10240, length, "request " + i);
                assertEquals(10240, in.readNBytes(10240).length, "request " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void runsTheWarsJsp(ConnectorUnderTest connector) throws Exception {
        HttpResponse<byte[]> r = get(connector, "hello.jsp");
        assertEquals(200, r.statusCode());
        assertEquals("Hello JSP 42", new String(r.body(), StandardCharsets.UTF_8).trim());
    }

    /** 1 MB sent chunked (no length known in advance) to /upload and /echo: every byte counted and returned. */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void readsAChunkedRequestBody(ConnectorUnderTest connector) throws Exception {
        byte[] body = new byte[1 << 20];
        new Random(42).nextBytes(body);
        CRC32 crc = new CRC32();
        crc.update(body);

        HttpResponse<byte[]> upload = post(connector, "upload", body);
        assertEquals(200, upload.statusCode());
        assertEquals(String.format("bytes=%d crc32=%08x", body.length, crc.getValue()),
                new String(upload.body(), StandardCharsets.UTF_8).trim());

        HttpResponse<byte[]> echo = post(connector, "echo", body);
        assertEquals(200, echo.statusCode());
        assertArrayEquals(body, echo.body());
    }

    /** Not parity but proof that the parameter really switches connectors: the servlet's stack shows which ran it. */
    @ParameterizedTest
    @EnumSource(ConnectorUnderTest.class)
    void servletRunsUnderTheChosenConnector(ConnectorUnderTest connector) throws Exception {
        String stack = new String(get(connector, "thread").body(), StandardCharsets.UTF_8);
        for (ConnectorUnderTest c : ConnectorUnderTest.values()) {
            assertEquals(c == connector, stack.contains(c.framePrefix), c + " frames under " + connector + ":\n" + stack);
        }
    }

    private HttpResponse<byte[]> get(ConnectorUnderTest connector, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(urls.of(connector).resolve(path)).timeout(Duration.ofSeconds(20))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> post(ConnectorUnderTest connector, String path, byte[] body)
            throws IOException, InterruptedException {
        HttpRequest.BodyPublisher chunked = HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body));
        return HTTP.send(HttpRequest.newBuilder(urls.of(connector).resolve(path)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/octet-stream").POST(chunked).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed by the server after '" + sb + "'");
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }
}
