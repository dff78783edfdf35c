package io.hybridconnector.bench.harness.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What every benchmark report states about the machine it ran on: the CPU model, how many CPUs are online, and how
 * busy the rest of the machine was (the load average; this machine is shared with other jobs). Read from /proc and
 * /sys; stateless; any thread.
 */
public final class Machine {

    private Machine() {
    }

    /** The highest online CPU + 1 (from /sys), or the JVM's count elsewhere than Linux. */
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

    /** The first {@code model name} of /proc/cpuinfo; empty elsewhere than Linux (and on CPUs that name none). */
    public static Optional<String> cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return Optional.of(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return Optional.empty();
    }

    /** The kernel's 1, 5 and 15 minute load averages, "?" when unreadable. */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
