package io.hybridconnector.bench.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU pinning with {@code taskset}, when it exists and the machine has at least two CPUs: the server on one CPU, the
 * load generator on another (MISSION.md, "How we measure"). Any thread; stateless.
 */
public final class Pinning {

    private final String tasksetPath;
    private final int serverCpu;
    private final int clientCpu;

    private Pinning(String tasksetPath, int serverCpu, int clientCpu) {
        this.tasksetPath = tasksetPath;
        this.serverCpu = serverCpu;
        this.clientCpu = clientCpu;
    }

    /** Pinning on the given CPUs if taskset is on the PATH and both CPUs exist; otherwise no pinning. */
    public static Pinning detect(boolean wanted, int serverCpu, int clientCpu) {
        if (!wanted || onlineCpus() <= Math.max(serverCpu, clientCpu)) {
            return new Pinning(null, serverCpu, clientCpu);
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, "taskset");
            if (Files.isExecutable(p)) {
                return new Pinning(p.toString(), serverCpu, clientCpu);
            }
        }
        return new Pinning(null, serverCpu, clientCpu);
    }

    /** The server's CPU when pinned, else -1. */
    public int serverCpu() {
        return enabled() ? serverCpu : -1;
    }

    public boolean enabled() {
        return tasksetPath != null;
    }

    /** The command prefix that starts a process on the server's CPU (empty without pinning). */
    public List<String> serverPrefix() {
        List<String> prefix = new ArrayList<>();
        if (enabled()) {
            prefix.add(tasksetPath);
            prefix.add("-c");
            prefix.add(Integer.toString(serverCpu));
        }
        return prefix;
    }

    /** Moves every thread of this JVM to the client's CPU; threads started later inherit it. */
    public void pinThisProcessToClientCpu() throws IOException, InterruptedException {
        if (!enabled()) {
            return;
        }
        Process p = new ProcessBuilder(tasksetPath, "-a", "-p", "-c", Integer.toString(clientCpu),
                Long.toString(ProcessHandle.current().pid())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("taskset failed: " + out);
        }
    }

    public String describe() {
        return enabled()
                ? "server `taskset -c " + serverCpu + "`, load generator `taskset -c " + clientCpu + "` (all threads)"
                : "none (taskset missing or fewer than 2 CPUs, or turned off)";
    }

    public static int onlineCpus() {
        try {
            String online = Files.readString(Path.of("/sys/devices/system/cpu/online")).trim();
            int max = 0;
            for (String range : online.split(",")) {
                String[] ends = range.split("-");
                max = Math.max(max, Integer.parseInt(ends[ends.length - 1]));
            }
            return max + 1;
        } catch (IOException | NumberFormatException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }
}
