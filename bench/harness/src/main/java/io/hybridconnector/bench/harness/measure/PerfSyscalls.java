package io.hybridconnector.bench.harness.measure;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Counts a process's system calls with {@code perf stat} tracepoints, when perf works here (optional: without it the
 * syscall columns stay empty). One instance per window; its methods are called from one thread (the load generator's,
 * through the Probe).
 *
 * <p>perf takes ~100 ms to start and attach, so it is started disabled ({@code -D -1}) before the warm-up and switched
 * on and off through its control FIFO at the exact window edges; each command waits for perf's "ack".
 */
public final class PerfSyscalls implements AutoCloseable {

    /**
     * One counted tracepoint: its count is added ({@code sign} 1) or subtracted (-1) to a column.
     * {@code filter} is a perf tracepoint filter or null.
     */
    record Event(String column, String tracepoint, String filter, int sign) {
    }

    /**
     * Columns, in print order: socket reads, socket writes (without wake-ups), wake-ups, futex, epoll, and writes that
     * returned EAGAIN (the kernel took nothing: the write-spin issue's count).
     */
    public static final List<String> COLUMNS = List.of("read", "write", "wakeup", "futex", "epoll_wait", "epoll_ctl",
            "eagain");

    /**
     * {@code write} of exactly 8 bytes is {@code Selector.wakeup()} (an eventfd write on JDK 17+ Linux), not a
     * response; the baseline counts them apart the same way.
     */
    static final List<Event> EVENTS = List.of(
            new Event("read", "syscalls:sys_enter_read", null, 1),
            new Event("read", "syscalls:sys_enter_recvfrom", null, 1),
            new Event("write", "syscalls:sys_enter_write", null, 1),
            new Event("write", "syscalls:sys_enter_write", "count == 8", -1),
            new Event("wakeup", "syscalls:sys_enter_write", "count == 8", 1),
            new Event("write", "syscalls:sys_enter_writev", null, 1),
            new Event("write", "syscalls:sys_enter_sendto", null, 1),
            new Event("futex", "syscalls:sys_enter_futex", null, 1),
            new Event("epoll_wait", "syscalls:sys_enter_epoll_wait", null, 1),
            new Event("epoll_wait", "syscalls:sys_enter_epoll_pwait", null, 1),
            new Event("epoll_ctl", "syscalls:sys_enter_epoll_ctl", null, 1),
            // -11 is EAGAIN (= EWOULDBLOCK) on Linux: a non-blocking write to a full send buffer
            new Event("eagain", "syscalls:sys_exit_write", "ret == -11", 1),
            new Event("eagain", "syscalls:sys_exit_writev", "ret == -11", 1));

    private static final long ACK_TIMEOUT_MILLIS = 5000;

    private final Process perf;
    private final Path dir;
    private final Path output;
    private final RandomAccessFile control;
    private final RandomAccessFile ack;
    private final ExecutorService ackReader;

    private PerfSyscalls(Process perf, Path dir, Path output, RandomAccessFile control, RandomAccessFile ack) {
        this.perf = perf;
        this.dir = dir;
        this.output = output;
        this.control = control;
        this.ack = ack;
        this.ackReader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "perf-ack");
            t.setDaemon(true);
            return t;
        });
    }

    /** True when {@code perf stat} can count a syscall tracepoint on this machine (needs root or a low paranoid). */
    public static boolean works() {
        try {
            Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "syscalls:sys_enter_write", "--", "true")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && out.matches("(?s).*\\d+,,syscalls.*");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts perf on {@code pid}, counting disabled. */
    public static PerfSyscalls attach(long pid, Path workDir) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path dir = Files.createTempDirectory(workDir, "perf");
        Path ctl = dir.resolve("ctl");
        Path ackFifo = dir.resolve("ack");
        Path out = dir.resolve("perf.csv");
        for (Path fifo : List.of(ctl, ackFifo)) {
            Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
            if (mk.waitFor() != 0) {
                throw new IOException("mkfifo failed for " + fifo);
            }
        }
        List<String> cmd = new java.util.ArrayList<>(List.of("perf", "stat", "-x,", "-D", "-1", "--control",
                "fifo:" + ctl + "," + ackFifo, "-o", out.toString(), "-p", Long.toString(pid)));
        for (Event e : EVENTS) {
            cmd.add("-e");
            cmd.add(e.tracepoint());
            if (e.filter() != null) {
                cmd.add("--filter");
                cmd.add(e.filter());
            }
        }
        Process perf = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("perf.log").toFile()).start();
        // O_RDWR opens of a FIFO never block, whether or not perf has opened its end yet.
        return new PerfSyscalls(perf, dir, out, new RandomAccessFile(ctl.toFile(), "rw"),
                new RandomAccessFile(ackFifo.toFile(), "rw"));
    }

    public void enable() throws IOException {
        command("enable");
    }

    public void disable() throws IOException {
        command("disable");
    }

    /** Stops perf and returns the counts per column of {@link #GROUPS}. */
    public Map<String, Long> finish() throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-INT", Long.toString(perf.pid())).start().waitFor();
        if (!perf.waitFor(10, TimeUnit.SECONDS)) {
            perf.destroyForcibly();
            throw new IOException("perf did not stop on SIGINT");
        }
        return parse(Files.readAllLines(output));
    }

    /** perf -x, prints one line per event, in the order of the -e options: "count,unit,event,...". */
    static Map<String, Long> parse(List<String> lines) throws IOException {
        List<Long> counts = new java.util.ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(",");
            if (f.length < 3 || !f[2].startsWith("syscalls:")) {
                continue; // comments, blank lines
            }
            counts.add(f[0].startsWith("<not") ? 0L : Long.parseLong(f[0]));
        }
        if (counts.size() != EVENTS.size()) {
            throw new IOException("perf printed " + counts.size() + " counts for " + EVENTS.size() + " events: "
                    + String.join("\n", lines));
        }
        Map<String, Long> result = new LinkedHashMap<>();
        for (String column : COLUMNS) {
            result.put(column, 0L);
        }
        for (int i = 0; i < counts.size(); i++) {
            Event e = EVENTS.get(i);
            result.merge(e.column(), e.sign() * counts.get(i), Long::sum);
        }
        return result;
    }

    @Override
    public void close() throws IOException {
        if (perf.isAlive()) {
            perf.destroyForcibly();
        }
        ackReader.shutdownNow();
        control.close();
        ack.close();
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    private void command(String command) throws IOException {
        if (!perf.isAlive()) {
            throw new IOException("perf exited: " + Files.readString(dir.resolve("perf.log")));
        }
        control.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
        Future<String> reply = ackReader.submit(() -> {
            byte[] buf = new byte[5];
            int n = ack.read(buf);
            return new String(buf, 0, Math.max(n, 0), StandardCharsets.US_ASCII);
        });
        try {
            String r = reply.get(ACK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            if (!r.startsWith("ack")) {
                throw new IOException("perf answered '" + r + "' to " + command);
            }
        } catch (TimeoutException e) {
            reply.cancel(true);
            throw new IOException("perf did not acknowledge '" + command + "' within " + ACK_TIMEOUT_MILLIS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for perf", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("reading perf's ack", e.getCause());
        }
    }
}
