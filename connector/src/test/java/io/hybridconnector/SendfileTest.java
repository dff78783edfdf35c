package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Static files through Tomcat's {@code DefaultServlet} with sendfile, stock NIO and ours with the same body: a
 * 100 MB file arrives intact, twice on one keep-alive connection, and on ours leaves in a handful of write calls.
 */
class SendfileTest {

    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    private static final long SIZE = 100L * 1024 * 1024;

    @ParameterizedTest
    @ValueSource(strings = { "org.apache.coyote.http11.Http11NioProtocol", "io.hybridconnector.HybridHttp11Protocol" })
    void hundredMegabyteStaticFile(String protocol) throws Exception {
        Path base = tmp; // 100 MB: JUnit deletes it after each invocation
        // Tomcat points catalina.home at the first base directory it is given, for the whole JVM; restored below so
        // that no later Tomcat re-creates this one (empty) after JUnit deleted it.
        String home = System.getProperty("catalina.home");
        String catalinaBase = System.getProperty("catalina.base");
        Path docs = Files.createDirectories(base.resolve("docs"));
        long crc = writeRandomFile(docs.resolve("big.bin"));
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector(protocol);
        connector.setPort(0);
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("", docs.toString());
        Tomcat.addServlet(ctx, "default", new DefaultServlet());
        ctx.addServletMappingDecoded("/", "default");
        tomcat.start();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", connector.getLocalPort()), 5000);
            s.setSoTimeout(30000);
            for (int i = 0; i < 2; i++) {
                OutputStream out = s.getOutputStream();
                out.write("GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                TestServer.Response head = SlowReaderTestSupport.readHead(in);
                assertEquals(200, head.status(), protocol);
                assertEquals(SIZE, SlowReaderTestSupport.contentLength(head.head()));
                CRC32 got = new CRC32();
                byte[] buf = new byte[1 << 16];
                long left = SIZE;
                while (left > 0) {
                    int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                    assertTrue(n > 0, "closed with " + left + " bytes left");
                    got.update(buf, 0, n);
                    left -= n;
                }
                assertEquals(crc, got.getValue(), protocol + ": the file arrived changed");
            }
            if (connector.getProtocolHandler() instanceof HybridHttp11Protocol ours) {
                long calls = ours.writeCounters().getWriteCalls();
                // Without sendfile the bytes would pass through the 64 KB socket buffer: 3,200 writes at the least.
                assertTrue(calls < 1000, "sendfile of 2 x 100 MB took " + calls + " write calls");
            }
        } finally {
            tomcat.stop();
            tomcat.destroy();
            restore("catalina.home", home);
            restore("catalina.base", catalinaBase);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    private static long writeRandomFile(Path file) throws Exception {
        CRC32 crc = new CRC32();
        SplittableRandom random = new SplittableRandom(11);
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < SIZE; written += chunk.length) {
                random.nextBytes(chunk);
                crc.update(chunk);
                out.write(chunk);
            }
        }
        return crc.getValue();
    }
}
