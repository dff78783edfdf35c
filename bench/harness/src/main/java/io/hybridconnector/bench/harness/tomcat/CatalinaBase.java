package io.hybridconnector.bench.harness.tomcat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The benchmarks' one way to run a real Tomcat distribution: a fresh {@code CATALINA_BASE} (the distribution's conf
 * files, the caller's server.xml, jars in {@code lib/}, WARs in {@code webapps/}) started with
 * {@code bin/catalina.sh run}. {@code taskset} and {@code catalina.sh run} both exec, so the started process is the
 * Tomcat JVM itself: its pid is the one to read in /proc. On request ({@link Spec#runAs}) Tomcat runs as another,
 * unprivileged user, as in production: the base is handed to that user, and so is a copy of the distribution's
 * {@code bin/} and {@code lib/} beside it (Tomcat's archives make their files readable by their owner and group
 * only, and the staged distribution is shared by every benchmark), and the command goes through
 * {@code runuser -u USER --}, which stays as the JVM's parent, so the JVM is then the started process's one child.
 * Created, started and closed by one thread (the benchmark's main thread); a shutdown hook kills Tomcat if the
 * benchmark dies first.
 */
public final class CatalinaBase implements AutoCloseable {

    /** How Tomcat is told to stop. */
    public enum Stop {
        /** {@code catalina.sh stop}, through the shutdown port server.xml declares; the JVM exits with 0. */
        SHUTDOWN_PORT,
        /** SIGTERM, for a server.xml without a shutdown port: Tomcat's shutdown hook stops it gracefully. */
        SIGTERM
    }

    /**
     * What to start.
     *
     * @param lib           files copied into {@code lib/}, by the name they get there
     * @param webapps       files copied into {@code webapps/}, by the name they get there
     * @param commandPrefix put before {@code bash catalina.sh run}, e.g. {@code taskset -c 0}; empty for none
     * @param runAs         the user that runs Tomcat, through {@code runuser -u USER --} after the prefix (this
     *                      process must be root; {@link ServiceUser#ensure} makes the user); its base and a copy of
     *                      the distribution ({@code <base>-home}) are chowned to it first. null: this process's
     *                      user, as before
     */
    public record Spec(Path catalinaHome, Path base, Path javaHome, List<String> jvmOptions, String serverXml,
            Map<String, Path> lib, Map<String, Path> webapps, List<String> commandPrefix, Stop stop, String runAs) {

        /** Tomcat runs as this process's user. */
        public Spec(Path catalinaHome, Path base, Path javaHome, List<String> jvmOptions, String serverXml,
                Map<String, Path> lib, Map<String, Path> webapps, List<String> commandPrefix, Stop stop) {
            this(catalinaHome, base, javaHome, jvmOptions, serverXml, lib, webapps, commandPrefix, stop, null);
        }
    }

    /** How long {@code runuser} may take to start its child, the Tomcat JVM. */
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(10);

    private final Spec spec;
    /** CATALINA_HOME: the distribution, or under {@link Spec#runAs} the copy that user may read. */
    private final Path home;
    private Process process;
    /** The Tomcat JVM: {@link #process} itself, or its child under {@code runuser}. */
    private ProcessHandle jvm;
    private Thread shutdownHook;

    private CatalinaBase(Spec spec) {
        this.spec = spec;
        this.home = spec.runAs() == null ? spec.catalinaHome()
                : spec.base().resolveSibling(spec.base().getFileName() + "-home");
    }

    /**
     * Lays out the base, starts Tomcat and waits until every URI in {@code ready} answers 200 (none: the caller
     * checks readiness its own way, e.g. from inside a network namespace). A 5xx answer, Tomcat exiting, or the
     * timeout fail at once, with what Tomcat logged; Tomcat is stopped then.
     */
    public static CatalinaBase start(Spec spec, List<URI> ready, Duration timeout) throws IOException,
            InterruptedException {
        CatalinaBase tomcat = new CatalinaBase(spec);
        tomcat.prepareBase();
        List<String> command = new ArrayList<>(spec.commandPrefix());
        if (spec.runAs() != null) {
            tomcat.copyDistribution();
            ServiceUser.handOver(spec.base(), spec.runAs());
            ServiceUser.handOver(tomcat.home, spec.runAs());
            command.addAll(ServiceUser.prefix(spec.runAs()));
        }
        command.addAll(List.of("bash", tomcat.home.resolve("bin/catalina.sh").toString(), "run"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(spec.base().resolve("logs/console.out").toFile());
        tomcat.environment(pb);
        pb.environment().put("JAVA_OPTS", String.join(" ", spec.jvmOptions()));
        tomcat.process = pb.start();
        tomcat.jvm = tomcat.process.toHandle();
        tomcat.shutdownHook = new Thread(tomcat::kill, "stop-tomcat");
        Runtime.getRuntime().addShutdownHook(tomcat.shutdownHook);
        try {
            if (spec.runAs() != null) {
                tomcat.jvm = tomcat.awaitChild();
            }
            tomcat.awaitReady(ready, timeout);
        } catch (IOException | InterruptedException e) {
            tomcat.close();
            throw e;
        }
        return tomcat;
    }

    /** The Tomcat JVM's pid (under {@code runuser}: its child's, not runuser's). */
    public long pid() {
        return jvm.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path base() {
        return spec.base();
    }

    /**
     * How the Tomcat JVM ended, once {@link #close} returned: 0 after a clean stop through the shutdown port; 137
     * when it had to be killed (it did not exit within 30 s, e.g. a non-daemon thread left running). The reliability
     * suite's graceful-stop scenario reads it.
     */
    public int exitValue() {
        return process.exitValue();
    }

    /** Stops Tomcat as {@link Spec#stop} says, then forcibly if it has not exited within 30 s (20 s for SIGTERM). */
    @Override
    public void close() throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            removeHook();
            return;
        }
        long waitSeconds;
        if (spec.stop() == Stop.SHUTDOWN_PORT) {
            ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/catalina.sh").toString(),
                    "stop").redirectErrorStream(true).redirectOutput(spec.base().resolve("logs/stop.out").toFile());
            environment(pb);
            pb.environment().remove("JAVA_OPTS");
            pb.start().waitFor(30, TimeUnit.SECONDS);
            waitSeconds = 30;
        } else {
            jvm.destroy(); // to the JVM itself: runuser passes a SIGTERM on, then SIGKILLs the JVM 2 s later
            waitSeconds = 20;
        }
        if (!process.waitFor(waitSeconds, TimeUnit.SECONDS)) {
            kill();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        removeHook();
    }

    /** SIGKILL to the JVM and to the started process (runuser, which cannot pass a SIGKILL on). */
    private void kill() {
        if (jvm != null) {
            jvm.destroyForcibly();
        }
        process.destroyForcibly();
    }

    /** The one child of {@code runuser}: bash running catalina.sh, which execs the JVM under the same pid. */
    private ProcessHandle awaitChild() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CHILD_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ProcessHandle> child = process.toHandle().children().findFirst();
            if (child.isPresent()) {
                return child.get();
            }
            if (!process.isAlive()) {
                throw new IOException("runuser exited with " + process.exitValue() + "; " + seeLogs());
            }
            Thread.sleep(10);
        }
        throw new IOException("runuser started no child within " + CHILD_TIMEOUT + "; " + seeLogs());
    }

    /** The started JVM's answer to a {@code jcmd} command, e.g. {@code VM.flags}. */
    public String jcmd(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(spec.javaHome().resolve("bin/jcmd").toString(), Long.toString(pid()), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    /** Everything Tomcat logged so far (console and log files). */
    public String logs() throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(spec.base().resolve("logs"))) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                sb.append("==== ").append(p.getFileName()).append('\n')
                        .append(Files.readString(p, StandardCharsets.ISO_8859_1));
            }
        }
        return sb.toString();
    }

    /** A TCP port free at the time of asking, for a connector or a shutdown port. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Deletes a directory tree (a previous run's base); nothing when it does not exist. */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Tomcat's variables for this base; the caller's CATALINA_OPTS, JRE_HOME, CATALINA_PID, CLASSPATH would leak in. */
    private void environment(ProcessBuilder pb) {
        pb.environment().put("CATALINA_HOME", home.toString());
        pb.environment().put("CATALINA_BASE", spec.base().toString());
        pb.environment().put("JAVA_HOME", spec.javaHome().toString());
        for (String inherited : List.of("CATALINA_OPTS", "JRE_HOME", "CATALINA_PID", "CLASSPATH")) {
            pb.environment().remove(inherited);
        }
    }

    private void removeHook() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run: nothing to remove
            }
            shutdownHook = null;
        }
    }

    /** A fresh copy of the distribution's {@code bin/} and {@code lib/} (what catalina.sh runs) in {@link #home}. */
    private void copyDistribution() throws IOException {
        deleteTree(home);
        Files.createDirectories(home);
        for (String dir : List.of("bin", "lib")) {
            Path from = spec.catalinaHome().resolve(dir);
            try (Stream<Path> files = Files.walk(from)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    Files.copy(p, home.resolve(dir).resolve(from.relativize(p).toString()),
                            StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private void prepareBase() throws IOException {
        Path base = spec.base();
        deleteTree(base);
        for (String dir : List.of("conf", "lib", "logs", "temp", "webapps", "work")) {
            Files.createDirectories(base.resolve(dir));
        }
        // Whatever the distribution ships (11.0 has no catalina.policy any more); server.xml is the caller's.
        try (Stream<Path> files = Files.list(spec.catalinaHome().resolve("conf"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    Files.copy(file, base.resolve("conf").resolve(file.getFileName()));
                }
            }
        }
        Files.writeString(base.resolve("conf/server.xml"), spec.serverXml());
        for (Map.Entry<String, Path> jar : spec.lib().entrySet()) {
            Files.copy(jar.getValue(), base.resolve("lib").resolve(jar.getKey()), StandardCopyOption.REPLACE_EXISTING);
        }
        for (Map.Entry<String, Path> war : spec.webapps().entrySet()) {
            Files.copy(war.getValue(), base.resolve("webapps").resolve(war.getKey()),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void awaitReady(List<URI> uris, Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (URI uri : uris) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException("Tomcat exited with " + process.exitValue() + "; " + seeLogs());
                }
                int status = 0;
                try {
                    status = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode();
                } catch (IOException notYet) {
                    // still starting
                }
                if (status == 200) {
                    break;
                }
                if (status >= 500) {
                    throw new IOException(uri + " answered " + status + " (the application did not start, or what "
                            + "it needs, such as its database, is unreachable); " + seeLogs());
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("Tomcat did not answer " + uri + " within " + timeout + "; " + seeLogs());
                }
                Thread.sleep(200);
            }
        }
    }

    private String seeLogs() throws IOException {
        return "see " + spec.base().resolve("logs") + ":\n" + logs();
    }
}
