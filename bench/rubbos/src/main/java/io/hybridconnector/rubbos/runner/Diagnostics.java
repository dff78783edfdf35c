package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What the server JVM was doing during a measured phase, for finding out why a point falls behind: a thread dump
 * ({@code jcmd Thread.print}) with a count of threads by state and by top frame, and every attribute of the
 * connector's {@code *:type=HybridConnector,*} MBean and of the JDBC pool's {@code *:type=DataSource,*} MBean, read
 * over a JMX port the server JVM opened for it. The MBeans are read by name only, so this compiles without the
 * connector. Used by the runner's main thread and one timer thread, never at once on the same file.
 */
final class Diagnostics {

    private static final Pattern STATE = Pattern.compile("java.lang.Thread.State: (\\w+)");

    private final long pid;
    private final int jmxPort;
    private final Path dir;
    /** Per thread id: name, nanoseconds on a CPU, nanoseconds runnable but waiting for one (schedstat). */
    private Map<String, long[]> schedStart = Map.of();
    private final Map<String, String> names = new HashMap<>();
    private long schedStartNanos;

    Diagnostics(long pid, int jmxPort, Path dir) {
        this.pid = pid;
        this.jmxPort = jmxPort;
        this.dir = dir;
    }

    /** The JVM options that open an unauthenticated JMX port on loopback (a benchmark box, not production). */
    static List<String> jvmOptions(int port) {
        return List.of("-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false");
    }

    /** Zeroes the connector's counters (its {@code resetCounters} operation); a no-op for stock NIO. */
    void resetCounters() {
        try (JMXConnector c = connect()) {
            MBeanServerConnection s = c.getMBeanServerConnection();
            for (ObjectName n : s.queryNames(new ObjectName("*:type=HybridConnector,*"), null)) {
                s.invoke(n, "resetCounters", new Object[0], new String[0]);
            }
        } catch (Exception e) {
            System.out.println("  diagnostics: could not reset the connector's counters: " + e);
        }
    }

    /** Writes {@code <name>-mbeans.txt}: the connector's and the pool's attributes now. */
    void writeMBeans(String name) {
        StringBuilder out = new StringBuilder();
        try (JMXConnector c = connect()) {
            MBeanServerConnection s = c.getMBeanServerConnection();
            for (String pattern : List.of("*:type=HybridConnector,*", "*:type=DataSource,*",
                    "*:type=ThreadPool,*")) {
                for (ObjectName n : s.queryNames(new ObjectName(pattern), null)) {
                    out.append(n).append('\n');
                    for (MBeanAttributeInfo a : s.getMBeanInfo(n).getAttributes()) {
                        try {
                            Object v = s.getAttribute(n, a.getName());
                            if (v == null || v instanceof Number || v instanceof Boolean || v instanceof String) {
                                out.append("  ").append(a.getName()).append(" = ").append(v).append('\n');
                            }
                        } catch (Exception unreadable) {
                            // some attributes throw when the component is in a given state
                        }
                    }
                }
            }
        } catch (Exception e) {
            out.append("could not read the MBeans: ").append(e).append('\n');
        }
        write(name + "-mbeans.txt", out.toString());
    }

    /**
     * Writes {@code <name>-threads.txt}: {@code samples} thread dumps 250 ms apart, summarised together (threads by
     * state, by top frame: a thread that spends most of its time in one place shows there in most samples), then
     * the last dump in full.
     */
    void writeThreadDump(String name, int samples) {
        StringBuilder all = new StringBuilder();
        String dump = "";
        for (int i = 0; i < samples; i++) {
            try {
                Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
                dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor(30, TimeUnit.SECONDS);
                all.append(dump).append("\n\n");
                Thread.sleep(250);
            } catch (IOException e) {
                dump = "jcmd failed: " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        write(name + "-threads.txt", samples + " dumps, counts summed over all of them\n" + summary(all.toString())
                + "\nThe last dump:\n" + dump);
    }

    /** Remembers every thread's scheduler counters; {@link #writeSched} reports the difference. */
    void startSched() {
        schedStartNanos = System.nanoTime();
        schedStart = sched();
    }

    /**
     * Writes {@code <name>-sched.txt}: for the threads that used a CPU since {@link #startSched}, the time on a CPU
     * and the time runnable but waiting in the kernel's run queue (Linux schedstat). A server thread that waits
     * long in the run queue is short of CPU (other processes on its core), not blocked.
     *
     * @return a one-line summary
     */
    String writeSched(String name) {
        Map<String, long[]> now = sched();
        double wall = (System.nanoTime() - schedStartNanos) / 1e6;
        List<String[]> rows = new ArrayList<>();
        long run = 0;
        long wait = 0;
        for (Map.Entry<String, long[]> e : now.entrySet()) {
            long[] before = schedStart.getOrDefault(e.getKey(), new long[2]);
            long r = e.getValue()[0] - before[0];
            long w = e.getValue()[1] - before[1];
            run += r;
            wait += w;
            if (r + w > 0) {
                rows.add(new String[] {names.getOrDefault(e.getKey(), "?") + " (" + e.getKey() + ")",
                        Long.toString(r), Long.toString(w)});
            }
        }
        rows.sort((a, b) -> Long.compare(Long.parseLong(b[1]) + Long.parseLong(b[2]),
                Long.parseLong(a[1]) + Long.parseLong(a[2])));
        String summary = String.format(Locale.ROOT, "%.0f ms wall: threads ran %.0f ms (%.0f%% of one CPU) and"
                + " waited %.0f ms runnable in the run queue (%.0f%%)", wall, run / 1e6, 100 * run / 1e6 / wall,
                wait / 1e6, 100 * wait / 1e6 / wall);
        StringBuilder out = new StringBuilder(summary).append("\n\n  on-CPU ms  run-queue ms  thread\n");
        for (String[] r : rows.subList(0, Math.min(25, rows.size()))) {
            out.append(String.format(Locale.ROOT, "%10.1f  %12.1f  %s%n", Long.parseLong(r[1]) / 1e6,
                    Long.parseLong(r[2]) / 1e6, r[0]));
        }
        write(name + "-sched.txt", out.toString());
        return summary;
    }

    private Map<String, long[]> sched() {
        Map<String, long[]> m = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                try {
                    String[] f = Files.readString(task.resolve("schedstat")).strip().split(" ");
                    String tid = task.getFileName().toString();
                    m.put(tid, new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
                    names.computeIfAbsent(tid, t -> {
                        try {
                            return Files.readString(task.resolve("comm")).strip();
                        } catch (IOException e) {
                            return "?";
                        }
                    });
                } catch (IOException | RuntimeException gone) {
                    // the thread exited while we read
                }
            }
        } catch (IOException e) {
            // not Linux, or the process is gone
        }
        return m;
    }

    /** Threads by state, and by state + first application frame, most common first. */
    static String summary(String dump) {
        Map<String, Integer> byState = new TreeMap<>();
        Map<String, Integer> byFrame = new TreeMap<>();
        for (String block : dump.split("\n\n")) {
            Matcher m = STATE.matcher(block);
            if (!m.find()) {
                continue;
            }
            String state = m.group(1);
            byState.merge(state, 1, Integer::sum);
            List<String> frames = block.lines().map(String::strip).filter(l -> l.startsWith("at ")).toList();
            String top = frames.isEmpty() ? "(no frame)" : frames.get(0);
            String app = frames.stream().filter(l -> !l.startsWith("at java.") && !l.startsWith("at jdk.")
                    && !l.startsWith("at sun.")).findFirst().orElse("");
            byFrame.merge(state + " " + top + (app.isEmpty() || app.equals(top) ? "" : " <- " + app), 1,
                    Integer::sum);
        }
        StringBuilder out = new StringBuilder("Threads by state: ").append(byState).append("\nBy top frame:\n");
        byFrame.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(e -> out.append(String.format("%6d  %s%n", e.getValue(), e.getKey())));
        return out.toString();
    }

    private JMXConnector connect() throws IOException {
        return JMXConnectorFactory.connect(new JMXServiceURL(
                "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
    }

    private void write(String file, String text) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(file), text);
        } catch (IOException e) {
            System.out.println("  diagnostics: could not write " + file + ": " + e);
        }
    }
}
