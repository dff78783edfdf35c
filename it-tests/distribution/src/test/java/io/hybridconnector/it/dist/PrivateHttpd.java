package io.hybridconnector.it.dist;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A private Apache httpd in front of Tomcat: its own configuration file, logs and run directory under the build's
 * {@code target/}, its own loopback ports, each port a virtual host that passes everything to one AJP port with
 * {@code mod_proxy_ajp}. Started in the foreground ({@code -DFOREGROUND}), so the process we hold is httpd's parent;
 * stopped with SIGTERM. Nothing of the machine's own httpd (its {@code /etc/apache2} configuration, its service) is
 * used or touched.
 * <p>
 * Runs on the JUnit thread that owns the test class; a JVM shutdown hook stops httpd if the test JVM is stopped first.
 */
final class PrivateHttpd {

    /** Debian's path; {@code -Dhttpd.binary=...} names another (a missing one shows the skip a CI machine sees). */
    static final Path BINARY = Path.of(System.getProperty("httpd.binary", "/usr/sbin/apache2"));
    static final Path MODULES = Path.of("/usr/lib/apache2/modules");
    private static final List<String> NEEDED_MODULES = List.of("mod_mpm_event.so", "mod_authz_core.so",
            "mod_proxy.so", "mod_proxy_ajp.so");
    private static final long START_TIMEOUT_SECONDS = 20;

    /** A front-end port and the AJP port (and secret) it forwards to. */
    record Route(String name, int ajpPort, String secret) {
    }

    private final Path dir;
    private final Map<Route, Integer> ports = new LinkedHashMap<>();
    private Process process;
    private Thread stopOnExit;

    /**
     * Why httpd cannot be used here, or null when it can: the binary and the modules this test loads must exist
     * (Debian's {@code apache2} package installs them).
     */
    static String whyUnavailable() {
        if (!Files.isExecutable(BINARY)) {
            return BINARY + " not installed (Debian: apt-get install apache2)";
        }
        for (String module : NEEDED_MODULES) {
            if (!Files.isRegularFile(MODULES.resolve(module))) {
                return MODULES.resolve(module) + " not found";
            }
        }
        return null;
    }

    PrivateHttpd(Path dir, List<Route> routes) throws IOException {
        this.dir = dir;
        // Held open together so that they are distinct; closed before httpd binds them.
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (Route route : routes) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                held.add(s);
                ports.put(route, s.getLocalPort());
            }
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    int port(Route route) {
        return ports.get(route);
    }

    void start() throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("logs"));
        Files.createDirectories(dir.resolve("run"));
        Path conf = dir.resolve("httpd.conf");
        Files.writeString(conf, config());
        ProcessBuilder pb = new ProcessBuilder(BINARY.toString(), "-f", conf.toString(), "-DFOREGROUND");
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        process = pb.redirectErrorStream(true).redirectOutput(dir.resolve("logs/console.out").toFile()).start();
        stopOnExit = new Thread(process::destroy, "stop-httpd");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (!ports.values().stream().allMatch(PrivateHttpd::accepts)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("httpd did not start (exit " + (process.isAlive() ? "-" : process.exitValue())
                        + "):\n" + logs());
            }
            Thread.sleep(50);
        }
    }

    /**
     * One small event-MPM process; only the modules AJP proxying needs. When the tests run as root, httpd's
     * children run as nobody (uid 65534), as httpd refuses to serve as root.
     */
    private String config() {
        StringBuilder c = new StringBuilder();
        c.append("ServerRoot \"").append(dir).append("\"\n");
        c.append("DefaultRuntimeDir \"").append(dir.resolve("run")).append("\"\n");
        c.append("PidFile \"").append(dir.resolve("run/httpd.pid")).append("\"\n");
        c.append("ErrorLog \"").append(dir.resolve("logs/error.log")).append("\"\n");
        c.append("LogLevel warn\n");
        c.append("ServerName 127.0.0.1\n");
        for (String module : NEEDED_MODULES) {
            String name = module.substring("mod_".length(), module.length() - ".so".length()) + "_module";
            c.append("LoadModule ").append(name).append(" \"").append(MODULES.resolve(module)).append("\"\n");
        }
        c.append("User #65534\nGroup #65534\n");
        c.append("StartServers 1\nServerLimit 1\nThreadsPerChild 16\nMaxRequestWorkers 16\n");
        c.append("MinSpareThreads 1\nMaxSpareThreads 16\n");
        for (Map.Entry<Route, Integer> e : ports.entrySet()) {
            Route r = e.getKey();
            String backend = "ajp://127.0.0.1:" + r.ajpPort() + "/";
            c.append("Listen 127.0.0.1:").append(e.getValue()).append('\n');
            c.append("<VirtualHost 127.0.0.1:").append(e.getValue()).append(">\n");
            c.append("  # ").append(r.name()).append('\n');
            c.append("  ProxyPass \"/\" \"").append(backend).append("\" secret=").append(r.secret()).append('\n');
            c.append("  ProxyPassReverse \"/\" \"").append(backend).append("\"\n");
            c.append("</VirtualHost>\n");
        }
        return c.toString();
    }

    /** httpd's console and error log, for a failure message. */
    String logs() {
        List<String> parts = new ArrayList<>();
        for (String log : List.of("logs/console.out", "logs/error.log")) {
            try {
                Path p = dir.resolve(log);
                parts.add("==== " + p + "\n" + (Files.exists(p) ? Files.readString(p, StandardCharsets.ISO_8859_1) : ""));
            } catch (IOException e) {
                parts.add("==== " + log + ": " + e);
            }
        }
        return String.join("\n", parts);
    }

    /** SIGTERM (httpd stops its children and exits), then SIGKILL if it has not exited within 10 s. */
    void stop() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing to remove
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }
}
