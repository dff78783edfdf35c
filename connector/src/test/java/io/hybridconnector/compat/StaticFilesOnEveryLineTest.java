package io.hybridconnector.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.util.ServerInfo;

import org.junit.jupiter.api.Test;

/**
 * The connector serving Tomcat's own {@code DefaultServlet} on whatever Tomcat line is on the class path, stock NIO
 * in the same body: keep-alive requests for a small and a 1 MB file, a missing one, byte for byte as stock answers.
 * The test uses only Tomcat API whose signatures are the same on 9.0, 10.1 and 11.0 (no servlet class is named), so
 * one compiled class runs on each: the default test run uses this module's Tomcat (10.1); the {@code tomcat-9.0}
 * surefire execution swaps in {@code tomcat-embed-core} 9.0 ({@code smoke.expectedTomcat}, checked first, says which
 * line must be running). On 9.0 the connector did not start before its endpoint implemented the three methods 9.0's
 * {@code AbstractEndpoint} declares abstract (the build check, {@link TomcatApiCompatibilityTest}, listed them).
 */
class StaticFilesOnEveryLineTest {

    private static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = "io.hybridconnector.HybridHttp11Protocol";

    @Test
    void staticFilesAnswerAsOnStockNio() throws Exception {
        String expected = System.getProperty("smoke.expectedTomcat", "");
        assertTrue(ServerInfo.getServerNumber().startsWith(expected),
                "running Tomcat " + ServerInfo.getServerNumber() + ", expected " + expected);
        Path root = Files.createTempDirectory("hybrid-static-files");
        try {
            Path docBase = Files.createDirectories(root.resolve("docs"));
            byte[] small = "a small static file\n".repeat(5).getBytes(StandardCharsets.US_ASCII);
            byte[] big = new byte[1024 * 1024];
            new Random(7).nextBytes(big);
            Files.write(docBase.resolve("small.txt"), small);
            Files.write(docBase.resolve("big.bin"), big);
            for (String protocol : new String[] { NIO, HYBRID }) {
                Tomcat tomcat = new Tomcat();
                tomcat.setBaseDir(root.resolve("base-" + protocol.length()).toString());
                Connector connector = new Connector(protocol);
                connector.setPort(0);
                connector.setProperty("address", "127.0.0.1");
                tomcat.getService().addConnector(connector);
                tomcat.setConnector(connector);
                Context ctx = tomcat.addContext("", docBase.toString());
                Tomcat.addServlet(ctx, "default", "org.apache.catalina.servlets.DefaultServlet");
                ctx.addServletMappingDecoded("/", "default");
                try {
                    tomcat.start();
                    assertEquals(LifecycleState.STARTED, connector.getState(), protocol + " on Tomcat " +
                            ServerInfo.getServerNumber());
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", connector.getLocalPort()), 5000);
                        s.setSoTimeout(20000);
                        for (int i = 0; i < 5; i++) {
                            assertArrayEquals(small, get(s, "/small.txt", 200), protocol);
                        }
                        assertArrayEquals(big, get(s, "/big.bin", 200), protocol);
                        get(s, "/missing.txt", 404);
                        assertArrayEquals(small, get(s, "/small.txt", 200), protocol);
                    }
                    System.out.println("[static-files] " + protocol + " on Tomcat " + ServerInfo.getServerNumber() +
                            ": 8 keep-alive requests answered as expected");
                } finally {
                    tomcat.stop();
                    tomcat.destroy();
                }
            }
        } finally {
            try (Stream<Path> all = Files.walk(root)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** One keep-alive GET; the response must have a Content-Length (static files and error pages do). */
    private static byte[] get(Socket s, String path, int status) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        String head = readHead(in);
        assertTrue(head.startsWith("HTTP/1.1 " + status + " "), path + ": " + head);
        int length = -1;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        assertTrue(length >= 0, "no Content-Length: " + head);
        byte[] body = in.readNBytes(length);
        assertEquals(length, body.length, path + ": body cut short");
        return body;
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        while (last4 != 0x0d0a0d0a) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed in a response head: " + head);
            }
            head.write(b);
            last4 = (last4 << 8) | b;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
