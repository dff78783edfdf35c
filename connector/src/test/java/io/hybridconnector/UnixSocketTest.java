package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code unixDomainSocketPath}: the connector listens on a socket file instead of a TCP port, like Tomcat's NIO
 * connector, and removes the file when it stops. Same test body for stock NIO and ours.
 */
class UnixSocketTest {

    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = { "org.apache.coyote.http11.Http11NioProtocol", "io.hybridconnector.HybridHttp11Protocol" })
    void servesKeepAliveRequestsOverAUnixSocket(String protocol) throws Exception {
        Path dir = tmp;
        Path path = dir.resolve("tomcat.sock");
        try (TestServer server = new TestServer(protocol, "unixDomainSocketPath", path.toString(),
                "unixDomainSocketPathPermissions", "rw-rw----")) {
            assertTrue(Files.exists(path), "no socket file");
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(path));
                for (String kb : new String[] { "0.1", "100", "10" }) {
                    ch.write(ByteBuffer.wrap(("GET /size?kb=" + kb + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII)));
                    TestServer.Response r = TestServer.readResponse(java.nio.channels.Channels.newInputStream(ch));
                    assertEquals(200, r.status(), protocol);
                    assertEquals(Math.round(Double.parseDouble(kb) * 1024), r.body().length);
                }
            }
        }
        assertFalse(Files.exists(path), protocol + " left its socket file behind");
    }

    /** Stopping releases a request blocked reading its body on a Unix socket at once (issue 15 item 5). */
    @ParameterizedTest
    @ValueSource(strings = { "org.apache.coyote.http11.Http11NioProtocol", "io.hybridconnector.HybridHttp11Protocol" })
    void stopReleasesARequestBlockedReadingItsBody(String protocol) throws Exception {
        Path path = tmp.resolve("stop.sock");
        try (TestServer server = new TestServer(protocol, "unixDomainSocketPath", path.toString());
                SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(path));
            ch.write(ByteBuffer.wrap(("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n" +
                    "x".repeat(1000)).getBytes(StandardCharsets.US_ASCII)));
            Thread.sleep(300); // the servlet has read the 1000 bytes and waits for more
            long start = System.nanoTime();
            server.connector.stop();
            long millis = (System.nanoTime() - start) / 1_000_000;
            // Ours: the bound; stock NIO took 9-81 ms over TCP on this shared 2-vCPU machine.
            long bound = protocol.startsWith("io.hybridconnector") ? 50 : 250;
            assertTrue(millis <= bound, protocol + ": stop with a blocked read took " + millis + " ms");
        }
    }
}
