package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.bench.harness.cpu.Taskset;

/**
 * The web tier of the 3-tier mode: Debian's Apache httpd (event MPM) started in the foreground on its own
 * configuration file, which forwards {@code /rubbos} to one Tomcat with {@code mod_proxy_http}, or to several with
 * {@code mod_proxy_balancer} (the N-copy model), over kept-alive backend connections. It serves nothing itself, so
 * every page and logo reaches Tomcat. Every child process is started up front and never recycled, so that the CPU
 * time summed over the process tree covers the whole measured phase. Main thread.
 */
final class Httpd implements AutoCloseable {

    /** Where Debian's apache2 package puts things. */
    static final Path BINARY = Path.of("/usr/sbin/apache2");
    static final Path MODULES = Path.of("/usr/lib/apache2/modules");

    /** The exact commands that give this machine what the 3-tier mode needs. */
    static final String HOW_TO_GET = "Apache httpd is not installed (" + BINARY + "). On Debian/Ubuntu, as root:\n"
            + "  apt-get update && apt-get install -y apache2\n"
            + "(the package ships mod_proxy, mod_proxy_http, mod_proxy_balancer and mod_lbmethod_byrequests; this runner"
            + " loads them from its own configuration, so a2enmod and the system service are not needed).";

    /**
     * @param processes   httpd child processes (ServerLimit = StartServers)
     * @param threadsEach worker threads per child (ThreadsPerChild); requests in flight at once = the product
     */
    record Spec(Path dir, int port, List<Integer> backendPorts, int processes, int threadsEach, String cpus) {
    }

    private final Spec spec;
    private Process process;

    private Httpd(Spec spec) {
        this.spec = spec;
    }

    static boolean installed() {
        return Files.isExecutable(BINARY) && Files.isRegularFile(MODULES.resolve("mod_proxy_http.so"))
                && Files.isRegularFile(MODULES.resolve("mod_proxy_balancer.so"));
    }

    static Httpd start(Spec spec) throws IOException, InterruptedException {
        Httpd h = new Httpd(spec);
        Files.createDirectories(spec.dir().resolve("run"));
        Path conf = spec.dir().resolve("httpd.conf");
        Files.writeString(conf, h.config());
        List<String> command = new ArrayList<>();
        if (spec.cpus() != null) {
            command.addAll(Taskset.prefix(spec.cpus()));
        }
        command.addAll(List.of(BINARY.toString(), "-f", conf.toString(), "-DFOREGROUND"));
        h.process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(spec.dir().resolve("console.out").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            if (!h.process.isAlive()) {
                throw new IOException("httpd exited with " + h.process.exitValue() + ": "
                        + Files.readString(spec.dir().resolve("console.out")) + " (see " + spec.dir() + ")");
            }
            try (Socket ignored = new Socket("127.0.0.1", spec.port())) {
                break;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    h.close();
                    throw new IOException("httpd did not listen on " + spec.port() + "; see " + spec.dir());
                }
                Thread.sleep(100);
            }
        }
        // Let every child come up before anything measures the process tree.
        Thread.sleep(1000);
        return h;
    }

    int port() {
        return spec.port();
    }

    /** @return httpd's parent and children now */
    Set<Long> pids() {
        Set<Long> pids = new TreeSet<>();
        if (process != null && process.isAlive()) {
            pids.add(process.pid());
            process.descendants().forEach(p -> pids.add(p.pid()));
        }
        return pids;
    }

    String config() {
        StringBuilder c = new StringBuilder();
        c.append("# Written by the RUBBoS 3-tier runner. httpd -> Tomcat over HTTP/1.1 (mod_proxy_http), backend "
                + "connections kept alive.\n");
        c.append("ServerRoot \"").append(spec.dir()).append("\"\n");
        c.append("DefaultRuntimeDir \"").append(spec.dir().resolve("run")).append("\"\n");
        c.append("PidFile \"").append(spec.dir().resolve("run/httpd.pid")).append("\"\n");
        c.append("ErrorLog \"").append(spec.dir().resolve("error.log")).append("\"\nLogLevel warn\n");
        c.append("ServerName localhost\nListen 127.0.0.1:").append(spec.port()).append('\n');
        for (String m : List.of("mpm_event", "authz_core", "slotmem_shm", "proxy", "proxy_http", "proxy_balancer",
                "lbmethod_byrequests")) {
            c.append("LoadModule ").append(m).append("_module ").append(MODULES.resolve("mod_" + m + ".so"))
                    .append('\n');
        }
        if ("root".equals(System.getProperty("user.name"))) {
            c.append("User www-data\nGroup www-data\n");
        }
        // Browser-like client connections stay open between pages; the event MPM parks idle ones without a thread.
        c.append("KeepAlive On\nMaxKeepAliveRequests 0\nKeepAliveTimeout 60\nTimeout 60\n");
        int workers = spec.processes() * spec.threadsEach();
        c.append("ServerLimit ").append(spec.processes()).append("\nStartServers ").append(spec.processes())
                .append("\nThreadsPerChild ").append(spec.threadsEach()).append("\nThreadLimit ")
                .append(spec.threadsEach()).append("\nMaxRequestWorkers ").append(workers)
                .append("\nMinSpareThreads 1\nMaxSpareThreads ").append(workers)
                .append("\nMaxConnectionsPerChild 0\n")
                // Connections a child may hold beyond its threads: idle keep-alive users (thousands) must fit.
                .append("AsyncRequestWorkerFactor 16\n");
        c.append("<Location \"/\">\n  Require all granted\n</Location>\n");
        c.append("ProxyRequests Off\nProxyPreserveHost On\nProxyTimeout 60\n");
        if (spec.backendPorts().size() == 1) {
            c.append("ProxyPass \"/rubbos\" \"http://127.0.0.1:").append(spec.backendPorts().get(0))
                    .append("/rubbos\" keepalive=On\n");
        } else {
            c.append("<Proxy \"balancer://rubbos\">\n");
            for (int port : spec.backendPorts()) {
                c.append("  BalancerMember \"http://127.0.0.1:").append(port).append("\" keepalive=On\n");
            }
            c.append("  ProxySet lbmethod=byrequests\n</Proxy>\n");
            c.append("ProxyPass \"/rubbos\" \"balancer://rubbos/rubbos\"\n");
        }
        return c.toString();
    }

    /** SIGTERM (httpd stops its children), then SIGKILL after 10 s. */
    @Override
    public void close() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }
}
