package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * {@code unixDomainSocketPathPermissions} is in force from the moment the socket file appears at its path: no window in
 * which another local user can connect (issue 16; Tomcat 10.1.58 closed the same window in {@code NioEndpoint}).
 * Watched twice: the directory's events (inotify: a chmod shows as a modification of the path after its creation) and
 * a thread that looks at the path as fast as it can while the connector binds.
 */
class UnixSocketPermissionTest {

    static final String PERMISSIONS = "rw-------"; // unlike anything a umask gives a new socket file

    @Test
    void permissionsAreInForceWhenTheSocketFileAppears() throws Exception {
        Path dir = Files.createTempDirectory("uds-perm");
        Path path = dir.resolve("tomcat.sock");
        AtomicReference<String> firstSeen = new AtomicReference<>();
        Thread watcher = new Thread(() -> {
            while (firstSeen.get() == null && !Thread.currentThread().isInterrupted()) {
                try {
                    firstSeen.set(PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)));
                } catch (java.io.IOException notYet) {
                    Thread.onSpinWait();
                }
            }
        });
        watcher.setDaemon(true);
        List<String> events = new ArrayList<>();
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_DELETE);
            watcher.start();
            try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "unixDomainSocketPath",
                    path.toString(), "unixDomainSocketPathPermissions", PERMISSIONS)) {
                watcher.join(5000);
                assertEquals(PERMISSIONS, firstSeen.get(), "permissions of the socket file when it first appeared");
                assertEquals(PERMISSIONS, PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
                Thread.sleep(200); // inotify's events arrive asynchronously
                WatchKey key;
                while ((key = watch.poll()) != null) {
                    for (WatchEvent<?> e : key.pollEvents()) {
                        events.add(e.kind().name() + " " + e.context());
                    }
                    key.reset();
                }
                List<String> onSocket = events.stream().filter(e -> e.endsWith(" tomcat.sock"))
                        .collect(Collectors.toList());
                assertEquals(List.of("ENTRY_CREATE tomcat.sock"), onSocket,
                        "the socket file changed after it appeared: " + events);
                try (Stream<Path> left = Files.list(dir)) {
                    assertEquals(List.of(path), left.collect(Collectors.toList()), "staging left behind");
                }
                assertEquals(200, get(path), "listening at the path");
            }
        } finally {
            watcher.interrupt();
        }
        assertTrue(Files.notExists(path), "socket file left behind");
        Files.delete(dir);
    }

    private static int get(Path path) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(path));
            ch.write(ByteBuffer.wrap("GET /size?kb=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)));
            return TestServer.readResponse(Channels.newInputStream(ch)).status();
        }
    }
}
