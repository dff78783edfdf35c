package io.hybridconnector.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code unixDomainSocketParentPermissions} and {@code unixDomainSocketParentOwner}, as on Tomcat 10.1.58+'s
 * {@code NioEndpoint}: the directory is created with the permissions when missing, and refused when it allows more
 * or belongs to someone else. Without them the directory is not looked at (a socket in a shared directory works).
 */
class UnixSocketFileTest {

    @TempDir
    Path tmp;

    @Test
    void missingParentIsCreatedWithTheConfiguredPermissions() throws Exception {
        Path socket = tmp.resolve("run/app/tomcat.sock");
        try (ServerSocketChannel ssc = UnixSocketFile.bind(socket, "rw-rw----", "rwxr-x---", null, 10)) {
            assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
        }
    }

    @Test
    void parentThatAllowsMoreIsRefused() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> UnixSocketFile.bind(dir.resolve("tomcat.sock"), "rw-------", "rwx------", null, 10));
        assertTrue(e.getMessage().contains("unixDomainSocketParentPermissions"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("tomcat.sock")), "no socket bound");
    }

    @Test
    void parentOwnedBySomeoneElseIsRefusedUnlessNamed() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("mine"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        String me = Files.getOwner(dir).getName();
        // The owner is the user running the test: accepted whatever is named; "" skips the check.
        UnixSocketFile.prepareParent(dir, PosixFilePermissions.fromString("rwx------"), "nobody-else");
        UnixSocketFile.prepareParent(dir, PosixFilePermissions.fromString("rwx------"), "");
        String previous = System.getProperty("user.name");
        System.setProperty("user.name", me + "-not");
        try {
            assertThrows(IllegalStateException.class,
                    () -> UnixSocketFile.prepareParent(dir, PosixFilePermissions.fromString("rwx------"), null));
            UnixSocketFile.prepareParent(dir, PosixFilePermissions.fromString("rwx------"), me);
        } finally {
            System.setProperty("user.name", previous);
        }
    }

    @Test
    void withoutParentPermissionsTheDirectoryIsNotChecked() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (ServerSocketChannel ssc = UnixSocketFile.bind(dir.resolve("tomcat.sock"), "rw-------", null, null, 10)) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    dir.resolve("tomcat.sock"))));
        }
    }
}
