package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time and context switches of one process, and context switches of the whole machine, read from Linux's
 * /proc (the counters collectl and sar report). Context switches are kept per thread and differenced per thread:
 * a thread that starts between two samples counts from zero, one that exits takes only the switches it made after
 * the first sample with it (the hybrid connector's pool lets idle threads go, so a plain sum over the threads alive
 * at each sample could even come out negative). Elsewhere than Linux every value is -1. Any thread.
 */
final class ProcessMeter {

    /** Linux's USER_HZ: the unit of utime/stime in /proc/[pid]/stat, 100 on every mainstream kernel. */
    private static final double TICKS_PER_SECOND = 100;

    /**
     * One reading.
     *
     * @param threadSwitches voluntary plus involuntary switches by "pid/tid", or {@code null} when unreadable
     */
    record Sample(long nanos, double cpuSeconds, Map<String, Long> threadSwitches, long machineContextSwitches) {
    }

    /** Differences between two readings, per second of wall time. */
    record Rates(double cpuPercent, double contextSwitchesPerSecond, double machineContextSwitchesPerSecond) {
    }

    private final long pid;

    ProcessMeter(long pid) {
        this.pid = pid;
    }

    Sample sample() {
        Map<String, Long> switches = new HashMap<>();
        return new Sample(System.nanoTime(), cpuSeconds(), addThreadSwitches(switches) ? switches : null,
                machineSwitches());
    }

    /**
     * One reading summed over several processes (Tomcat copies; httpd's parent and children, found afresh at each
     * reading, so keep httpd's children alive for the whole run). Machine switches are counted once.
     */
    static Sample sum(java.util.Collection<Long> pids) {
        double cpu = 0;
        Map<String, Long> switches = new HashMap<>();
        for (long pid : pids) {
            ProcessMeter m = new ProcessMeter(pid);
            double c = m.cpuSeconds();
            if (c < 0 || !m.addThreadSwitches(switches)) {
                return new Sample(System.nanoTime(), -1, null, -1);
            }
            cpu += c;
        }
        return new Sample(System.nanoTime(), cpu, switches, machineSwitches());
    }

    static Rates between(Sample a, Sample b) {
        double seconds = (b.nanos() - a.nanos()) / 1e9;
        if (a.cpuSeconds() < 0 || seconds <= 0) {
            return new Rates(-1, -1, -1);
        }
        return new Rates(100 * (b.cpuSeconds() - a.cpuSeconds()) / seconds,
                switchesBetween(a.threadSwitches(), b.threadSwitches()) / seconds,
                (b.machineContextSwitches() - a.machineContextSwitches()) / seconds);
    }

    /** Switches made between two samples by the threads alive at the second one; -1 when either is unreadable. */
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

    private double cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // Fields after the command name, which is in parentheses and may contain spaces.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Adds this process's threads' switches to {@code into}, keyed "pid/tid"; {@code false} if /proc is unreadable. */
    private boolean addThreadSwitches(Map<String, Long> into) {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                long switches = 0;
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches") || line.startsWith("nonvoluntary_ctxt_switches")) {
                            switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    continue; // the thread exited while we read
                }
                into.put(pid + "/" + task.getFileName(), switches);
            }
        } catch (IOException e) {
            return false;
        }
        return true;
    }

    private static long machineSwitches() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("ctxt ")) {
                    return Long.parseLong(line.substring(5).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
