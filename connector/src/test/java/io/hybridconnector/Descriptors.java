package io.hybridconnector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** This JVM's open file descriptors by kind ({@code /proc/self/fd}, Linux): sockets, epoll, eventfd, pipes, files. */
public final class Descriptors {

    private Descriptors() {
    }

    /** @return the number of open descriptors (the listing's own directory descriptor included, always one) */
    public static int count() throws IOException {
        try (Stream<Path> fds = Files.list(Paths.get("/proc/self/fd"))) {
            return (int) fds.count();
        }
    }

    /** @return counts by kind: {@code socket}, {@code anon_inode:[eventpoll]}, {@code anon_inode:[eventfd]}, ... */
    public static Map<String,Integer> byKind() throws IOException {
        Map<String,Integer> kinds = new TreeMap<>();
        for (String target : targets()) {
            String kind = target.startsWith("socket:") ? "socket" : target.startsWith("pipe:") ? "pipe" :
                    target.startsWith("anon_inode:") ? target : "file";
            kinds.merge(kind, 1, Integer::sum);
        }
        return kinds;
    }

    /** @return the number of open descriptors whose target matches, e.g. files ending in {@code /schedstat} */
    public static int countTargets(Predicate<String> matches) throws IOException {
        int n = 0;
        for (String target : targets()) {
            if (matches.test(target)) {
                n++;
            }
        }
        return n;
    }

    /** What each open descriptor points to ({@code socket:[inode]}, a path, ...). */
    private static List<String> targets() throws IOException {
        List<String> targets = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Paths.get("/proc/self/fd"))) {
            fds.forEach(fd -> {
                try {
                    targets.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // closed while listing (the listing's own descriptor)
                }
            });
        }
        return targets;
    }

    /** Waits up to {@code millis} for the count to come down to {@code atMost}; returns the last count seen. */
    public static int awaitAtMost(int atMost, long millis) throws Exception {
        long deadline = System.currentTimeMillis() + millis;
        int n;
        while ((n = count()) > atMost && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        return n;
    }
}
