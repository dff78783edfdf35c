package io.hybridconnector.bench.harness.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

import io.hybridconnector.bench.harness.load.Probe;

/**
 * Server-side counters over one load window: CPU time and context switches from /proc, and syscalls from perf when
 * it works. Called on the load generator's thread through {@link Probe}; {@link #finish} on the same thread after.
 */
public final class ServerProbe implements Probe {

    /** Counter deltas over the window; {@code syscalls} is empty without perf. */
    public record Delta(long cpuTicks, long ticksPerSecond, long voluntarySwitches, long involuntarySwitches,
            Map<String, Long> syscalls, String perfProblem, long serverCpuBusyTicks, long serverCpuTotalTicks) {

        /** Share of the server's CPU (all CPUs without pinning) busy with anything, Tomcat included. */
        public double serverCpuBusyShare() {
            return serverCpuTotalTicks == 0 ? Double.NaN : (double) serverCpuBusyTicks / serverCpuTotalTicks;
        }

        public double cpuNanos() {
            return cpuTicks * 1e9 / ticksPerSecond;
        }

        public long contextSwitches() {
            return voluntarySwitches + involuntarySwitches;
        }
    }

    private final ProcStats proc;
    private final long pid;
    private final boolean usePerf;
    private final Path workDir;
    private final int serverCpu;
    private final boolean attachLate;
    private long[] cpuStart;
    private long[] cpuEnd;
    private PerfSyscalls perf;
    private String perfProblem;
    private ProcStats.Sample start;
    private ProcStats.Sample end;

    /** @param serverCpu the CPU the server is pinned to, or -1 when not pinned */
    public ServerProbe(ProcStats proc, long pid, boolean usePerf, Path workDir, int serverCpu) {
        this(proc, pid, usePerf, workDir, serverCpu, false);
    }

    /**
     * @param attachLate start perf when the window opens instead of before the warm-up: {@code perf stat -p} counts
     *                   only the threads that exist when it attaches, and a server that starts a thread per new
     *                   connection (thread-per-connection models, growing pools) would have its new threads missed.
     *                   Costs the window's start perf's start-up time (the load pauses, ~0.1-0.3 s); the /proc
     *                   samples are taken after perf acknowledged, so both cover the same span.
     */
    public ServerProbe(ProcStats proc, long pid, boolean usePerf, Path workDir, int serverCpu, boolean attachLate) {
        this.attachLate = attachLate;
        this.serverCpu = serverCpu;
        this.proc = proc;
        this.pid = pid;
        this.usePerf = usePerf;
        this.workDir = workDir;
    }

    @Override
    public void beforeWarmup() {
        if (!attachLate) {
            attach();
        }
    }

    private void attach() {
        if (!usePerf) {
            return;
        }
        try {
            perf = PerfSyscalls.attach(pid, workDir);
        } catch (IOException e) {
            perfProblem = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            perfProblem = "interrupted";
        }
    }

    @Override
    public void measureStart() {
        if (attachLate) {
            attach();
            enablePerf();
        }
        procStart();
        if (!attachLate) {
            enablePerf();
        }
    }

    @Override
    public void measureEnd() {
        disablePerf();
        procEnd();
    }

    /**
     * The window's edges taken apart, for harnesses that do more at the edges (read an MBean) and want /proc tight
     * around the load's window: {@link #perfOn()} (attaches first when attaching late), then {@link #procStart()} just
     * before the window; {@link #procEnd()} right after it, then {@link #perfOff()}.
     */
    public void perfOn() {
        if (attachLate) {
            attach();
        }
        enablePerf();
    }

    public void procStart() {
        cpuStart = cpuTicks();
        start = sample();
    }

    public void procEnd() {
        end = sample();
        cpuEnd = cpuTicks();
    }

    public void perfOff() {
        disablePerf();
    }

    private void enablePerf() {
        if (perf != null) {
            try {
                perf.enable();
            } catch (IOException e) {
                perfProblem = e.getMessage();
                closePerf();
            }
        }
    }

    private void disablePerf() {
        if (perf != null) {
            try {
                perf.disable();
            } catch (IOException e) {
                perfProblem = e.getMessage();
                closePerf();
            }
        }
    }

    private long[] cpuTicks() {
        try {
            return ProcStats.cpuBusyAndTotalTicks(serverCpu);
        } catch (IOException e) {
            return new long[2];
        }
    }

    /** Stops perf and returns the deltas. */
    public Delta finish() throws InterruptedException {
        Map<String, Long> syscalls = Map.of();
        if (perf != null) {
            try {
                syscalls = perf.finish();
            } catch (IOException e) {
                perfProblem = e.getMessage();
            } finally {
                closePerf();
            }
        }
        if (start == null || end == null) {
            throw new IllegalStateException("the load generator never opened the measured window");
        }
        long[] switches = end.switchesSince(start);
        return new Delta(end.cpuTicks() - start.cpuTicks(), proc.ticksPerSecond(), switches[0], switches[1], syscalls,
                perfProblem,
                cpuEnd[0] - cpuStart[0], cpuEnd[1] - cpuStart[1]);
    }

    private ProcStats.Sample sample() {
        try {
            return proc.sample();
        } catch (IOException e) {
            throw new UncheckedIOException("reading /proc/" + pid, e);
        }
    }

    private void closePerf() {
        try {
            perf.close();
        } catch (IOException ignored) {
            // a temp dir left behind in target/ at worst
        }
        perf = null;
    }
}
