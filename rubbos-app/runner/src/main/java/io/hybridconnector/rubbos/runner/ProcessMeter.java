package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and context switches of one process, and context switches of the whole machine, read from Linux's
 * /proc (the counters collectl and sar report). Thread counters are summed over the threads alive at the time of
 * the sample, so a thread that exits between two samples takes its switches with it; Tomcat's threads live as
 * long as the server, so this does not matter here. Elsewhere than Linux every value is -1. Any thread.
 */
final class ProcessMeter {

    /** Linux's USER_HZ: the unit of utime/stime in /proc/[pid]/stat, 100 on every mainstream kernel. */
    private static final double TICKS_PER_SECOND = 100;

    /** One reading. */
    record Sample(long nanos, double cpuSeconds, long contextSwitches, long machineContextSwitches) {
    }

    /** Differences between two readings, per second of wall time. */
    record Rates(double cpuPercent, double contextSwitchesPerSecond, double machineContextSwitchesPerSecond) {
    }

    private final long pid;

    ProcessMeter(long pid) {
        this.pid = pid;
    }

    Sample sample() {
        return new Sample(System.nanoTime(), cpuSeconds(), threadSwitches(), machineSwitches());
    }

    /**
     * One reading summed over several processes (Tomcat copies; httpd's parent and children, found afresh at each
     * reading, so keep httpd's children alive for the whole run). Machine switches are counted once.
     */
    static Sample sum(java.util.Collection<Long> pids) {
        double cpu = 0;
        long switches = 0;
        for (long pid : pids) {
            ProcessMeter m = new ProcessMeter(pid);
            double c = m.cpuSeconds();
            long s = m.threadSwitches();
            if (c < 0 || s < 0) {
                return new Sample(System.nanoTime(), -1, -1, -1);
            }
            cpu += c;
            switches += s;
        }
        return new Sample(System.nanoTime(), cpu, switches, machineSwitches());
    }

    static Rates between(Sample a, Sample b) {
        double seconds = (b.nanos() - a.nanos()) / 1e9;
        if (a.cpuSeconds() < 0 || seconds <= 0) {
            return new Rates(-1, -1, -1);
        }
        return new Rates(100 * (b.cpuSeconds() - a.cpuSeconds()) / seconds,
                (b.contextSwitches() - a.contextSwitches()) / seconds,
                (b.machineContextSwitches() - a.machineContextSwitches()) / seconds);
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

    private long threadSwitches() {
        long total = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches") || line.startsWith("nonvoluntary_ctxt_switches")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread exited while we read
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
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
