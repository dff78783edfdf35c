package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A CFS bandwidth limit on one process: the kernel lets its threads run for {@code share} x {@code period} of CPU
 * time per period and then holds them until the next one. The 3-tier runner uses it to make Tomcat the bottleneck
 * on a machine too small to give httpd, MariaDB and the client cores of their own (the paper's Fig 3 condition):
 * Tomcat pinned to CPU 0 and capped at, say, 40% of it saturates while CPU 1 still has room for the other tiers.
 *
 * <p>A short period (10 ms) keeps the pauses short: with the kernel's default of 100 ms a capped Tomcat would stop
 * for up to 60 ms at a time, which adds to every response time near saturation. Works on the cgroup v1 {@code cpu}
 * controller ({@code cpu.cfs_quota_us}) and on cgroup v2 ({@code cpu.max}); needs root. Created and closed by the
 * runner's main thread.
 */
final class CpuQuota implements AutoCloseable {

    static final long PERIOD_MICROS = 10_000;

    private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
    private static final Path V2 = Path.of("/sys/fs/cgroup");

    private final Path group;
    private final double share;
    private final long quotaMicros;

    private CpuQuota(Path group, double share, long quotaMicros) {
        this.group = group;
        this.share = share;
        this.quotaMicros = quotaMicros;
    }

    /**
     * Creates a cgroup named {@code name} with the limit and moves every thread of {@code pid} into it.
     *
     * @param share the fraction of one CPU, in (0, 1]
     */
    static CpuQuota limit(long pid, String name, double share) throws IOException {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("--tomcat-cpu-share must be in (0, 1], was " + share);
        }
        long quota = Math.max(1_000, Math.round(share * PERIOD_MICROS));
        Path group;
        if (Files.isRegularFile(V1.resolve("cpu.cfs_quota_us"))) {
            group = Files.createDirectories(V1.resolve(name));
            Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
            Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
        } else if (Files.isRegularFile(V2.resolve("cgroup.controllers"))
                && Files.readString(V2.resolve("cgroup.controllers")).contains("cpu")) {
            Files.writeString(V2.resolve("cgroup.subtree_control"), "+cpu");
            group = Files.createDirectories(V2.resolve(name));
            Files.writeString(group.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
        } else {
            throw new IOException("--tomcat-cpu-share needs the cgroup cpu controller (" + V1
                    + "/cpu.cfs_quota_us or cpu in " + V2 + "/cgroup.controllers) and root; neither was found");
        }
        Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
        return new CpuQuota(group, share, quota);
    }

    /** @return how often and for how long the kernel held the process back, from the group's {@code cpu.stat} */
    String throttling() {
        try {
            return String.join(", ", Files.readAllLines(group.resolve("cpu.stat")));
        } catch (IOException e) {
            return "?";
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.0f%% of one CPU (CFS quota %d us per %d us period, cgroup %s)",
                share * 100, quotaMicros, PERIOD_MICROS, group);
    }

    /** Removes the group; the kernel refuses while it still holds a live process, so call it after the process ended. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(group);
        } catch (IOException e) {
            System.out.println("Could not remove cgroup " + group + ": " + e.getMessage());
        }
    }
}
