package io.hybridconnector.rubbos.runner;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.bench.harness.cpu.Taskset;

/**
 * The server tier as a child JVM ({@link ServerMain}), optionally pinned to CPUs with taskset. Its output goes to
 * a log file; the runner waits for the ready line. Closing the runner's end of its stdin stops it. Created and
 * closed by the runner's main thread; one daemon thread copies the child's output.
 */
final class ServerProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    private ServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * @param cpus taskset CPU list such as {@code "0"}, or null not to pin
     */
    static ServerProcess start(List<String> serverArgs, String cpus, Path log) throws IOException,
            InterruptedException {
        return start(List.of(), serverArgs, cpus, log);
    }

    /**
     * @param jvmOptions extra options for the server JVM (e.g. a JMX port)
     * @param cpus       taskset CPU list such as {@code "0"}, or null not to pin
     */
    static ServerProcess start(List<String> jvmOptions, List<String> serverArgs, String cpus, Path log)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(Taskset.prefix(cpus));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms1g");
        command.add("-Xmx2g");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ServerMain.class.getName());
        command.addAll(serverArgs);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Integer> ready = new CompletableFuture<>();
        Thread copier = new Thread(() -> copy(p, log, ready), "server-log");
        copier.setDaemon(true);
        copier.start();
        try {
            return new ServerProcess(p, ready.get(180, TimeUnit.SECONDS));
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IOException("the server did not start; see " + log, e);
        }
    }

    private static void copy(Process p, Path log, CompletableFuture<Integer> ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             var out = Files.newBufferedWriter(log)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.write(line);
                out.newLine();
                out.flush();
                if (line.startsWith("rubbos-server:")) {
                    System.out.println("  " + line);
                }
                if (line.startsWith(ServerMain.READY)) {
                    ready.complete(Integer.parseInt(line.substring(ServerMain.READY.length()).strip()));
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IOException("the server's output ended before it was ready"));
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // it is going away anyway
        }
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
