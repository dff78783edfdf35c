package io.hybridconnector.reliability.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a process's open file descriptors point to, from {@code /proc/PID/fd}: {@code socket:[INODE]},
 * {@code anon_inode:[eventpoll]}, {@code pipe:[INODE]}, a file's path. Stateless; Linux only.
 */
public final class ProcessFds {

    private ProcessFds() {
    }

    /** The targets of the process's fd links; an fd closed while they are read is left out. */
    public static List<String> links(long pid) throws IOException {
        List<String> links = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    links.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException closedMeanwhile) {
                    // gone since the listing
                }
            }
        }
        return links;
    }
}
