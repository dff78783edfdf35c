package io.hybridconnector.experiments;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.bench.harness.cpu.Taskset;
import io.hybridconnector.bench.harness.tomcat.CatalinaBase;

/**
 * The server processes of one phase, each pinned to the server CPU: a Tomcat 10.1 distribution with one Connector per
 * Tomcat-hosted variant on the default JDK, a second Tomcat on a JDK 21+ for NIO on virtual threads, and a Jetty 12
 * JVM (or each on the CPUs a phase names). Optionally all inside a network namespace ({@code prefix}). Our MBean is
 * read over a local JMX port of the first Tomcat (see {@link JmxCounters}). Used from the harness's main thread only.
 */
final class ServerFleet implements AutoCloseable {

    /** Where one variant is served. {@code jmxPort} is 0 when the process has no JMX agent. */
    record Endpoint(Variant variant, String address, int port, long pid, int jmxPort) {
    }

    /** Everything needed to start the processes. */
    record Layout(Path catalinaHome, Path connectorJar, Path samplesWar, Path samplesClasses, Path work,
            Path javaHome, Path vtJavaHome, String jvmOptions, int serverCpu) {
    }

    private final Layout layout;
    private final String address;
    private final List<String> prefix;
    private final String cpus;
    private final PrintStream log;
    private final List<CatalinaBase> tomcats = new ArrayList<>();
    /** Jetty's JVMs. */
    private final List<Process> processes = new ArrayList<>();
    private final Map<String, Endpoint> endpoints = new LinkedHashMap<>();

    /**
     * @param address bind address of every connector (127.0.0.1, or the server namespace's address)
     * @param prefix  command prefix before {@code taskset} (e.g. {@code ip netns exec tcsrv}), or empty
     */
    ServerFleet(Layout layout, String address, List<String> prefix, PrintStream log) {
        this(layout, address, prefix, Integer.toString(layout.serverCpu()), log);
    }

    /** @param cpus {@code taskset -c} list for every server process, e.g. "0" or "0,1" */
    ServerFleet(Layout layout, String address, List<String> prefix, String cpus, PrintStream log) {
        this.layout = layout;
        this.address = address;
        this.prefix = prefix;
        this.cpus = cpus;
        this.log = log;
    }

    Endpoint endpoint(String variantId) {
        Endpoint e = endpoints.get(variantId);
        if (e == null) {
            throw new IllegalArgumentException("variant " + variantId + " was not started");
        }
        return e;
    }

    /** Starts what {@code variants} need and waits until every one serves {@code /samples/size?kb=0.1}. */
    void start(List<Variant> variants, String tag) throws IOException, InterruptedException {
        List<Variant> tomcat = variants.stream().filter(v -> v.host() == Variant.Host.TOMCAT).toList();
        List<Variant> sync = variants.stream().filter(v -> v.host() == Variant.Host.TOMCAT_SYNC).toList();
        List<Variant> vt = variants.stream().filter(v -> v.host() == Variant.Host.TOMCAT_VT).toList();
        if (!tomcat.isEmpty()) {
            startTomcat(tomcat, layout.javaHome(), tag + "-tomcat", true);
        }
        if (!sync.isEmpty()) {
            startTomcat(sync, layout.javaHome(), tag + "-tomcat-sync", true);
        }
        if (!vt.isEmpty()) {
            if (layout.vtJavaHome() == null) {
                log.println("  no JDK 21+ found under /usr/lib/jvm: skipping " + vt.stream().map(Variant::id).toList());
            } else {
                startTomcat(vt, layout.vtJavaHome(), tag + "-tomcat-vt", false);
            }
        }
        for (Variant v : variants) {
            if (v.host() == Variant.Host.JETTY) {
                startJetty(v, tag + "-jetty");
            }
        }
        for (Endpoint e : endpoints.values()) {
            awaitReady(e, 120_000);
        }
    }

    private void startTomcat(List<Variant> variants, Path javaHome, String name, boolean jmx)
            throws IOException, InterruptedException {
        Path base = layout.work().resolve(name);
        int shutdownPort = CatalinaBase.freePort();
        int jmxPort = jmx ? CatalinaBase.freePort() : 0;
        StringBuilder connectors = new StringBuilder();
        List<Endpoint> started = new ArrayList<>();
        for (Variant v : variants) {
            int port = CatalinaBase.freePort();
            connectors.append("    <Connector port=\"").append(port).append("\" address=\"").append(address)
                    .append("\" protocol=\"").append(v.protocol()).append("\" connectionTimeout=\"20000\" ")
                    .append(v.attrs().replace('\'', '"')).append("/>\n");
            started.add(new Endpoint(v, address, port, 0, v.isOurs() ? jmxPort : 0));
        }
        String serverXml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by bench/experiments: one Connector per variant, no access log, no auto-deploy. -->
                <Server port="%d" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
                  <Service name="Catalina">
                %s    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" />
                    </Engine>
                  </Service>
                </Server>
                """.formatted(shutdownPort, connectors);
        List<String> opts = new ArrayList<>(List.of(layout.jvmOptions().split("\\s+")));
        if (jmx) {
            // A local JMX port so that the harness (another JVM, maybe in another network namespace) reads our
            // MBean; authentication off, bound to the connectors' address only.
            opts.addAll(List.of("-Dcom.sun.management.jmxremote.port=" + jmxPort,
                    "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                    "-Dcom.sun.management.jmxremote.host=" + address, "-Djava.rmi.server.hostname=" + address,
                    "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false",
                    "-Dcom.sun.management.jmxremote.local.only=false"));
        }
        List<String> command = new ArrayList<>(prefix);
        command.addAll(Taskset.prefix(cpus));
        CatalinaBase tomcat = CatalinaBase.start(new CatalinaBase.Spec(layout.catalinaHome(), base, javaHome, opts,
                serverXml, Map.of("hybrid-connector.jar", layout.connectorJar()),
                Map.of("samples.war", layout.samplesWar()), command, CatalinaBase.Stop.SIGTERM), List.of(),
                Duration.ZERO);
        tomcats.add(tomcat);
        long pid = tomcat.pid();
        for (Endpoint e : started) {
            endpoints.put(e.variant().id(), new Endpoint(e.variant(), e.address(), e.port(), pid, e.jmxPort()));
        }
        log.printf("  started %s (pid %d, %s, JDK %s): %s%n", name, pid, base, javaHome.getFileName(),
                variants.stream().map(v -> v.id() + "@" + endpointPort(started, v)).toList());
    }

    private static int endpointPort(List<Endpoint> list, Variant v) {
        return list.stream().filter(e -> e.variant() == v).findFirst().orElseThrow().port();
    }

    private void startJetty(Variant v, String name) throws IOException {
        Path dir = layout.work().resolve(name);
        Files.createDirectories(dir);
        int port = CatalinaBase.freePort();
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(Taskset.prefix(cpus));
        cmd.add(layout.javaHome().resolve("bin/java").toString());
        cmd.addAll(List.of(layout.jvmOptions().split("\\s+")));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path") + ":" + layout.samplesClasses(),
                JettyMain.class.getName(), address, Integer.toString(port)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("console.out").toFile())
                .start();
        processes.add(p);
        endpoints.put(v.id(), new Endpoint(v, address, port, p.pid(), 0));
        log.printf("  started %s (pid %d, JDK %s): %s@%d%n", name, p.pid(), layout.javaHome().getFileName(), v.id(),
                port);
    }

    /** A raw GET: no HttpClient, so that it works from any namespace and costs the server one small request. */
    private void awaitReady(Endpoint e, long timeoutMillis) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        ProcessHandle p = ProcessHandle.of(e.pid()).orElse(null);
        while (true) {
            if (p == null || !p.isAlive()) {
                throw new IOException("server for " + e.variant().id() + " exited; see its logs under "
                        + layout.work());
            }
            if (get(e.address(), e.port(), "/samples/size?kb=0.1").startsWith("HTTP/1.1 200")) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IOException(e.variant().id() + " did not answer within " + timeoutMillis + " ms");
            }
            Thread.sleep(250);
        }
    }

    static String get(String address, int port, String path) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException notYet) {
            return "";
        }
    }

    /** The JVM flags and version of a server process ({@code jcmd}), for the report. */
    String jvmInfo(long pid, Path javaHome) {
        try {
            Process p = new ProcessBuilder(javaHome.resolve("bin/jcmd").toString(), Long.toString(pid), "VM.version")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(20, TimeUnit.SECONDS);
            return out.lines().filter(l -> !l.isBlank() && !l.matches("\\d+:")).findFirst().orElse("?");
        } catch (IOException | InterruptedException e) {
            return "?";
        }
    }

    /** Stops every process this fleet started (they are ours): SIGTERM, then SIGKILL after 20 s. */
    @Override
    public void close() throws IOException, InterruptedException {
        for (CatalinaBase tomcat : tomcats) {
            tomcat.close();
        }
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
