package io.hybridconnector.bench.harness.cpu;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The main job's and the experiments' CPU split, with {@link Taskset} when it exists and the machine has at least two
 * CPUs: the server on one CPU, the load generator on another (MISSION.md, "How we measure"). Any thread; immutable.
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
        if (!wanted || Machine.onlineCpus() <= Math.max(serverCpu, clientCpu)) {
            return new Pinning(null, serverCpu, clientCpu);
        }
        return new Pinning(Taskset.find().map(Path::toString).orElse(null), serverCpu, clientCpu);
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
        if (enabled()) {
            Taskset.pinAllThreads(ProcessHandle.current().pid(), Integer.toString(clientCpu));
        }
    }

    public String describe() {
        return enabled()
                ? "server `taskset -c " + serverCpu + "`, load generator `taskset -c " + clientCpu + "` (all threads)"
                : "none (taskset missing or fewer than 2 CPUs, or turned off)";
    }
}
