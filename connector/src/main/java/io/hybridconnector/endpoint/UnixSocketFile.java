package io.hybridconnector.endpoint;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Binds a listening Unix domain socket whose file carries its permissions from the moment it appears at its path.
 * <p>
 * {@code bind()} creates the file with the process's umask; setting the configured permissions afterwards leaves a
 * window in which another local user may connect (issue 16). Here the socket is bound in a private directory (owner
 * only) beside the target, given its permissions there, and then linked into place in one step ({@code link(2)},
 * which fails if the path exists, as {@code bind()} does); the private name and directory are removed.
 * <p>
 * <b>Follows Tomcat 10.1.59</b> {@code org/apache/tomcat/util/net/NioEndpoint.java}, the Unix-socket branch of
 * {@code initServerSocket} and {@code getUnixDomainSocketParentPermissionsInternal}: the attributes
 * {@code unixDomainSocketPath}, {@code unixDomainSocketPathPermissions}, {@code unixDomainSocketParentPermissions} and
 * {@code unixDomainSocketParentOwner} mean what they mean there. Tomcat 11.0.25 is the same (it calls the JDK where
 * 10.1 goes through {@code JreCompat}). Re-synced 2026-11-25 (added then: the two parent attributes, from Tomcat
 * 10.1.58's "Improve security of Unix domain sockets"). Differs on purpose:
 * <ul>
 * <li>The socket file's permissions: Tomcat sets them after {@code bind()}, and closes the window by the parent
 * directory's permissions; here the file is linked into place with them, so the window never opens whatever the
 * directory.</li>
 * <li>So the parent directory is created or checked only when {@code unixDomainSocketParentPermissions} is set.
 * Tomcat, when it is not, derives it from the socket's permissions (execute added, group and others' write removed)
 * and refuses a directory that allows more, such as {@code /tmp}: configurations that work today keep working.</li>
 * <li>POSIX file systems only (Tomcat falls back to {@code File.setReadable/setWritable} elsewhere): Unix domain
 * sockets with permissions are a Linux deployment here.</li>
 * </ul>
 * <p>
 * Called once, on the lifecycle thread, at bind.
 */
final class UnixSocketFile {

    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private UnixSocketFile() {
    }

    /**
     * @param permissions       {@code rw-rw----} style, or {@code null} to leave the file as {@code bind()} creates it
     * @param parentPermissions {@code rwxr-x---} style: the parent directory is created with them if missing, and must
     *                              allow no more than them; {@code null}: the directory is left as it is
     * @param parentOwner       who must own the parent directory when {@code parentPermissions} is set ({@code null}:
     *                              the user running Tomcat; either one is accepted; {@code ""}: not checked)
     * @return the bound channel, listening at {@code path}
     */
    static ServerSocketChannel bind(Path path, String permissions, String parentPermissions, String parentOwner,
            int backlog) throws IOException {
        if (parentPermissions != null && !parentPermissions.isBlank()) {
            prepareParent(path.toAbsolutePath().getParent(), PosixFilePermissions.fromString(parentPermissions),
                    parentOwner);
        }
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

    /** Creates the directory with {@code allowed} if it is missing, then checks its permissions and owner. */
    static void prepareParent(Path dir, Set<PosixFilePermission> allowed, String expectedOwner) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(allowed));
            Files.setPosixFilePermissions(dir, allowed); // the umask masked the attribute
        }
        Set<PosixFilePermission> extra = EnumSet.noneOf(PosixFilePermission.class);
        extra.addAll(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS));
        extra.removeAll(allowed);
        if (!extra.isEmpty()) {
            throw new IllegalStateException("unixDomainSocketParentPermissions=\"" +
                    PosixFilePermissions.toString(allowed) + "\": the directory " + dir + " also allows " + extra);
        }
        if (expectedOwner != null && expectedOwner.isEmpty()) {
            return;
        }
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        String user = System.getProperty("user.name");
        if (!owner.equals(expectedOwner) && !owner.equals(user)) {
            throw new IllegalStateException("The directory " + dir + " of the Unix domain socket is owned by [" + owner +
                    "], neither unixDomainSocketParentOwner [" + expectedOwner + "] nor the user running Tomcat [" +
                    user + "]");
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
