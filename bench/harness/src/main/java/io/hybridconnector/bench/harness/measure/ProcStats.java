package io.hybridconnector.bench.harness.measure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a process's CPU time and context switches from /proc: the one place that parses {@code /proc/PID/stat},
 * {@code /proc/PID/task/TID/status} and {@code /proc/stat} for every benchmark. Any thread (stateless but for the
 * pid).
 *
 * <p>Context switches are summed over {@code /proc/PID/task/*}: the process-level {@code status} counts only the
 * main thread. A thread that exits during a window takes its switches with it (Tomcat's pool threads live long).
 */
public final class ProcStats {

    /** Counters at one instant; {@code perTask}: thread id -> {voluntary, involuntary}. */
    public record Sample(long cpuTicks, long voluntarySwitches, long involuntarySwitches, int threads,
            java.util.Map<String, long[]> perTask) {

        public long contextSwitches() {
            return voluntarySwitches + involuntarySwitches;
        }

        /**
         * {voluntary, involuntary} switches between {@code start} and this sample, thread by thread: a thread that
         * exited in between takes its switches with it (summing totals would then go down, even below zero when a
         * pool shrinks); a thread born in between counts from zero.
         */
        public long[] switchesSince(Sample start) {
            long v = 0;
            long i = 0;
            for (java.util.Map.Entry<String, long[]> e : perTask.entrySet()) {
                long[] before = start.perTask.getOrDefault(e.getKey(), new long[2]);
                v += e.getValue()[0] - before[0];
                i += e.getValue()[1] - before[1];
            }
            return new long[] { v, i };
        }
    }

    /** USER_HZ, the unit of utime and stime; asked once ({@code getconf} is a process start). */
    private static final long TICKS_PER_SECOND = clockTicks();

    private final long pid;
    private final long ticksPerSecond;

    public ProcStats(long pid) {
        this.pid = pid;
        this.ticksPerSecond = TICKS_PER_SECOND;
    }

    public static boolean available() {
        return Files.isReadable(Path.of("/proc/self/stat"));
    }

    public long ticksPerSecond() {
        return ticksPerSecond;
    }

    public Sample sample() throws IOException {
        long ticks = cpuTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        long voluntary = 0;
        long involuntary = 0;
        int threads = 0;
        java.util.Map<String, long[]> perTask = new java.util.HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String status;
                try {
                    status = Files.readString(task.resolve("status"), StandardCharsets.ISO_8859_1);
                } catch (NoSuchFileException exited) {
                    continue;
                }
                long v = field(status, "voluntary_ctxt_switches:");
                long i = field(status, "nonvoluntary_ctxt_switches:");
                voluntary += v;
                involuntary += i;
                perTask.put(task.getFileName().toString(), new long[] { v, i });
                threads++;
            }
        }
        return new Sample(ticks, voluntary, involuntary, threads, perTask);
    }

    /** utime + stime: fields 14 and 15 of /proc/PID/stat, counted after the ")" that ends the command name. */
    static long cpuTicks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state), so field n is f[n - 3]
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    static long field(String status, String name) {
        int at = status.startsWith(name) ? 0 : status.indexOf("\n" + name);
        if (at < 0) {
            return 0;
        }
        int start = status.indexOf(':', at) + 1;
        int end = status.indexOf('\n', start);
        return Long.parseLong(status.substring(start, end < 0 ? status.length() : end).trim());
    }

    /**
     * Busy and total ticks of one CPU (or all, for {@code cpu < 0}) from /proc/stat: what else ran on the server's
     * CPU shows as busy time that is not the server's own.
     */
    public static long[] cpuBusyAndTotalTicks(int cpu) throws IOException {
        String[] f = cpuFields(cpu < 0 ? "cpu " : "cpu" + cpu + " ");
        long total = totalTicks(f);
        long idle = Long.parseLong(f[3]) + Long.parseLong(f[4]); // idle + iowait
        return new long[] { total - idle, total };
    }

    /**
     * Steal and total ticks of all CPUs from /proc/stat. Steal is time this virtual machine's CPUs wanted to run while
     * the hypervisor ran something else: in a window with much of it, both connectors' latencies and throughputs
     * are disturbed by the host, not by either connector.
     */
    public static long[] stealAndTotalTicks() throws IOException {
        return stealAndTotalTicks(cpuFields("cpu "));
    }

    /** Steal and total ticks of one {@code cpu} line of /proc/stat (a kernel without the steal field: 0 steal). */
    static long[] stealAndTotalTicks(String cpuLine) {
        return stealAndTotalTicks(fieldsAfterName(cpuLine));
    }

    private static long[] stealAndTotalTicks(String[] f) {
        return new long[] { f.length > 7 ? Long.parseLong(f[7]) : 0, totalTicks(f) };
    }

    /** The tick fields of the /proc/stat line that starts with {@code prefix} ("cpu " for all CPUs, "cpu0 "). */
    private static String[] cpuFields(String prefix) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
            if (line.startsWith(prefix)) {
                return fieldsAfterName(line);
            }
        }
        throw new IOException("no " + prefix.trim() + " line in /proc/stat");
    }

    private static String[] fieldsAfterName(String cpuLine) {
        return cpuLine.substring(cpuLine.indexOf(' ')).trim().split("\\s+");
    }

    /** user..steal; guest time is inside user already. */
    private static long totalTicks(String[] f) {
        long total = 0;
        for (int i = 0; i < Math.min(f.length, 8); i++) {
            total += Long.parseLong(f[i]);
        }
        return total;
    }

    /** @return steal ticks between two {@link #stealAndTotalTicks} samples as a share of the CPUs' time (0 to 1) */
    public static double stealShare(long[] before, long[] after) {
        long total = after[1] - before[1];
        return total <= 0 ? 0 : (double) (after[0] - before[0]) / total;
    }

    /** Context switches of the whole machine since boot ({@code ctxt} in /proc/stat). */
    public static long machineContextSwitches() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
            if (line.startsWith("ctxt ")) {
                return Long.parseLong(line.substring(5).strip());
            }
        }
        throw new IOException("no ctxt line in /proc/stat");
    }

    /** Which CPUs a process may run on, as the kernel says ({@code Cpus_allowed_list}). */
    public static String cpusAllowed(long pid) {
        try {
            String status = Files.readString(Path.of("/proc", Long.toString(pid), "status"));
            for (String line : status.split("\n")) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return "?";
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor() == 0) {
                return Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            // fall through
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100; // USER_HZ on every mainstream Linux
    }
}
