package io.hybridconnector.endpoint;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Binds a listening Unix domain socket whose file carries its permissions from the moment it appears at its path.
 * <p>
 * {@code bind()} creates the file with the process's umask; setting the configured permissions afterwards leaves a
 * window in which another local user may connect (issue 16). Tomcat 10.1.58 closed that window in {@code NioEndpoint}
 * ("Improve security of Unix domain sockets") by creating, or checking, the parent directory with restricted
 * permissions before binding. Here the socket is bound in a private directory (owner only) beside the target, given
 * its permissions there, and then linked into place in one step ({@code link(2)}, which fails if the path exists, as
 * {@code bind()} does); the private name and directory are removed. Followed: Tomcat 10.1.59 {@code NioEndpoint}
 * ({@code initServerSocket}) for the attribute's meaning; check it again on a Tomcat upgrade.
 * <p>
 * Called once, on the lifecycle thread, at bind.
 */
final class UnixSocketFile {

    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private UnixSocketFile() {
    }

    /**
     * @param permissions {@code rw-rw----} style, or {@code null} to leave the file as {@code bind()} creates it
     * @return the bound channel, listening at {@code path}
     */
    static ServerSocketChannel bind(Path path, String permissions, int backlog) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            if (permissions == null) {
                channel.bind(UnixDomainSocketAddress.of(path), backlog);
            } else {
                bindPrivatelyThenLink(channel, path.toAbsolutePath(), PosixFilePermissions.fromString(permissions),
                        backlog);
            }
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static void bindPrivatelyThenLink(ServerSocketChannel channel, Path target,
            Set<PosixFilePermission> permissions, int backlog) throws IOException {
        if (Files.exists(target)) {
            throw new FileAlreadyExistsException(target.toString(), null, "Address already in use");
        }
        // Beside the target: the same file system, so that the link is possible. Nobody else may enter it.
        Path dir = Files.createTempDirectory(target.getParent(), ".uds",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        Path staged = dir.resolve("s");
        try {
            channel.bind(UnixDomainSocketAddress.of(staged), backlog);
            Files.setPosixFilePermissions(staged, permissions);
            try {
                Files.createLink(target, staged);
            } catch (UnsupportedOperationException e) {
                Files.move(staged, target); // no hard links here: a rename, as atomic for the permissions
            }
        } finally {
            Files.deleteIfExists(staged);
            Files.delete(dir);
        }
    }
}
