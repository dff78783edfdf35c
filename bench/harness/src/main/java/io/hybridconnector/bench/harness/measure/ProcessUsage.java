package io.hybridconnector.bench.harness.measure;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU and context-switch rates of one process or a group of them (Tomcat copies; httpd's parent and children,
 * found afresh at each reading, so keep httpd's children alive for the whole run) between two readings, and the
 * whole machine's context switches: what the RUBBoS sweep reports per tier. Read through {@link ProcStats}.
 * Context switches are differenced per thread: a thread that starts between two readings counts from zero, one
 * that exits takes only the switches it made after the first reading with it (the hybrid connector's pool lets idle
 * threads go, so a plain sum over the threads alive at each reading could even come out negative). When /proc
 * cannot be read (not Linux, the process gone) every value is -1. Any thread.
 */
public final class ProcessUsage {

    /**
     * One reading.
     *
     * @param threadSwitches voluntary plus involuntary switches by "pid/tid", or {@code null} when unreadable
     */
    public record Sample(long nanos, double cpuSeconds, Map<String, Long> threadSwitches,
            long machineContextSwitches) {
    }

    /** Differences between two readings, per second of wall time. */
    public record Rates(double cpuPercent, double contextSwitchesPerSecond, double machineContextSwitchesPerSecond) {
    }

    private ProcessUsage() {
    }

    /** One reading of one process. */
    public static Sample of(long pid) {
        return sum(List.of(pid));
    }

    /** One reading summed over several processes; the machine's switches are counted once. */
    public static Sample sum(Collection<Long> pids) {
        double cpu = 0;
        Map<String, Long> switches = new HashMap<>();
        try {
            for (long pid : pids) {
                ProcStats proc = new ProcStats(pid);
                ProcStats.Sample s = proc.sample();
                cpu += (double) s.cpuTicks() / proc.ticksPerSecond();
                s.perTask().forEach((tid, vi) -> switches.put(pid + "/" + tid, vi[0] + vi[1]));
            }
            return new Sample(System.nanoTime(), cpu, switches, ProcStats.machineContextSwitches());
        } catch (IOException | RuntimeException unreadable) {
            return new Sample(System.nanoTime(), -1, null, -1);
        }
    }

    public static Rates between(Sample a, Sample b) {
        double seconds = (b.nanos() - a.nanos()) / 1e9;
        if (a.cpuSeconds() < 0 || b.cpuSeconds() < 0 || seconds <= 0) {
            return new Rates(-1, -1, -1);
        }
        return new Rates(100 * (b.cpuSeconds() - a.cpuSeconds()) / seconds,
                switchesBetween(a.threadSwitches(), b.threadSwitches()) / seconds,
                (b.machineContextSwitches() - a.machineContextSwitches()) / seconds);
    }

    /** Switches made between two readings by the threads alive at the second one; -1 when either is unreadable. */
    static long switchesBetween(Map<String, Long> a, Map<String, Long> b) {
        if (a == null || b == null) {
            return -1;
        }
        long total = 0;
        for (Map.Entry<String, Long> e : b.entrySet()) {
            total += e.getValue() - a.getOrDefault(e.getKey(), 0L);
        }
        return total;
    }
}
