package io.hybridconnector.bench.harness.cpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * CPU affinity through util-linux's {@code taskset}: the command prefix that starts a process on given CPUs, and
 * moving every thread of a running process. The benchmarks keep the server on its own core and the load on another
 * (MISSION.md, "How we measure"); this is the one place that spells the command. Stateless; any thread.
 */
public final class Taskset {

    private Taskset() {
    }

    /** The taskset binary on the PATH, if any. */
    public static Optional<Path> find() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, "taskset");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** {@code taskset -c CPUS}, to put before a command; empty for {@code cpus == null} (not pinned). */
    public static List<String> prefix(String cpus) {
        return cpus == null ? List.of() : List.of("taskset", "-c", cpus);
    }

    /**
     * Moves every thread of {@code pid} onto {@code cpus} (a list such as "1" or "0,1"); threads it starts later
     * inherit it.
     *
     * @throws IOException when taskset fails, with its output
     */
    public static void pinAllThreads(long pid, String cpus) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(find().map(Path::toString).orElse("taskset"), "-a", "-p", "-c", cpus,
                Long.toString(pid)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("taskset failed: " + out);
        }
    }

    /** Every online CPU but {@code taken} (a taskset list of single CPUs, e.g. "0" or "0,2"), as a taskset list. */
    public static String otherCpus(String taken) {
        List<String> takenCpus = List.of(taken.split(","));
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < Machine.onlineCpus(); i++) {
            if (!takenCpus.contains(Integer.toString(i))) {
                rest.add(Integer.toString(i));
            }
        }
        return String.join(",", rest);
    }
}
