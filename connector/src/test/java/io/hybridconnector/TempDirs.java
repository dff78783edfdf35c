package io.hybridconnector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Removes the temporary directories the test servers create (Tomcat base directories, keys), now and once more when
 * the JVM exits: a request thread that a stop released may still finish after the server was destroyed and create
 * the base directory again (its access log line, its work directory). Shared by the connector's tests and the
 * it-tests (test jar). Any thread.
 */
public final class TempDirs {

    private static final Set<Path> DELETED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> DELETED.forEach(TempDirs::deleteTree)));
    }

    private TempDirs() {
    }

    /** Deletes a directory tree, best effort (a temporary directory left behind is not a test failure). */
    public static void deleteRecursively(Path dir) {
        if (dir != null) {
            DELETED.add(dir);
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // best effort
        }
    }
}
