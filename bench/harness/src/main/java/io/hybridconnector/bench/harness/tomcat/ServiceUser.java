package io.hybridconnector.bench.harness.tomcat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The unprivileged user a benchmark's Tomcat runs as, as production runs it (issue 38: "unprivileged is the
 * reference"): made when missing (a system user without a home or a login shell), given the {@code CATALINA_BASE},
 * and switched to with util-linux's {@code runuser}. Only root can do any of it; a benchmark started by another user
 * runs Tomcat as that user, which is unprivileged already. Stateless; the benchmark's main thread.
 */
public final class ServiceUser {

    /** The user the benchmarks create and run Tomcat as. */
    public static final String DEFAULT = "hcbench";

    private ServiceUser() {
    }

    /**
     * The user to give {@link CatalinaBase.Spec#runAs}: {@code name} when this process is root, made first if it does
     * not exist ({@code useradd -r -M -s /usr/sbin/nologin}); null when this process is not root (Tomcat then runs
     * as this process's user).
     *
     * @throws IOException when the user does not exist and cannot be made
     */
    public static String ensure(String name) throws IOException, InterruptedException {
        if (!isRoot()) {
            return null;
        }
        if (run(List.of("id", "-u", name)) != 0
                && run(List.of("useradd", "-r", "-M", "-s", "/usr/sbin/nologin", name)) != 0) {
            throw new IOException("cannot make the user " + name + " (useradd -r -M -s /usr/sbin/nologin " + name
                    + " failed)");
        }
        return name;
    }

    /** Whether this process's effective user is root (from /proc/self/status; false elsewhere than Linux). */
    public static boolean isRoot() {
        return "0".equals(uid(ProcessHandle.current().pid()));
    }

    /** How a process runs, for a report: e.g. {@code hcbench (uid 999)}. */
    public static String describe(long pid) {
        String name = ProcessHandle.of(pid).flatMap(p -> p.info().user()).orElse("?");
        return name + " (uid " + uid(pid) + ")";
    }

    /** What goes before a command to run it as {@code user}; {@code runuser} stays as its parent. */
    static List<String> prefix(String user) {
        return List.of("runuser", "-u", user, "--");
    }

    /** Gives {@code base} and everything in it to {@code user} (and that user's group). */
    static void handOver(Path base, String user) throws IOException, InterruptedException {
        if (run(List.of("chown", "-R", user + ":", base.toString())) != 0) {
            throw new IOException("chown -R " + user + ": " + base + " failed");
        }
    }

    /** The effective uid of a process, from the second field of its status file's {@code Uid:} line; "?" if unread. */
    private static String uid(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2];
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not Linux
        }
        return "?";
    }

    private static int run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect
                .DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
