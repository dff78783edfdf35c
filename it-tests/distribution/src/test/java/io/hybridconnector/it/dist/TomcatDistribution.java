package io.hybridconnector.it.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One unpacked Tomcat distribution, installed and run as an operator would: our jar in {@code lib/}, the example
 * {@code server.xml} (our connector beside stock NIO) on free ports, the samples WAR in {@code webapps/}, started in
 * the foreground with {@code bin/catalina.sh run} and its console kept as {@code logs/catalina.out}.
 * <p>
 * Or, with {@link #TomcatDistribution(String, Path)}, a separate {@code CATALINA_BASE} beside the unpacked
 * {@code CATALINA_HOME}, with a server.xml of the test's own ({@link #installBase}): the way an operator runs several
 * instances from one installation, and what lets test classes with different server.xml files share one unpacked
 * distribution.
 * <p>
 * Runs on the JUnit thread that owns the test class. A JVM shutdown hook kills Tomcat if the test JVM is stopped
 * before {@link #stop} ran (Surefire's fork timeout, Ctrl-C), so no Tomcat outlives the build.
 */
final class TomcatDistribution {

    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long STOP_TIMEOUT_SECONDS = 30;

    final String version;
    final Path home;
    /** {@code CATALINA_BASE}: {@link #home} itself, or a directory of the test's own. */
    final Path base;
    final int shutdownPort;
    final int hybridPort;
    final int nioPort;
    /** Free ports for two more connectors (AJP) that a test's own server.xml may use; the example does not. */
    final int hybridAjpPort;
    final int nioAjpPort;
    /** Free ports for two TLS connectors that a test's own server.xml may use; the example does not. */
    final int hybridTlsPort;
    final int nioTlsPort;
    private Process process;
    private Thread killOnExit;

    TomcatDistribution(String version) throws IOException {
        this(version, null);
    }

    /** @param base a separate {@code CATALINA_BASE} to create, or null to run in the distribution's own directory */
    TomcatDistribution(String version, Path base) throws IOException {
        this.version = version;
        this.home = Path.of(System.getProperty("dist.dir"), "apache-tomcat-" + version);
        if (!Files.isDirectory(home.resolve("bin"))) {
            throw new IllegalStateException("distribution not unpacked at " + home);
        }
        this.base = base == null ? home : base;
        int[] ports = freePorts(7);
        this.shutdownPort = ports[0];
        this.hybridPort = ports[1];
        this.nioPort = ports[2];
        this.hybridAjpPort = ports[3];
        this.nioAjpPort = ports[4];
        this.hybridTlsPort = ports[5];
        this.nioTlsPort = ports[6];
    }

    /** The connector's name as Tomcat logs it, e.g. {@code "http-hybrid-8080"}. */
    String hybridName() {
        return "\"http-hybrid-" + hybridPort + "\"";
    }

    /** Installs the jar, the WAR and the example server.xml, starts Tomcat and waits until the samples answer. */
    void install() throws IOException {
        Path artifacts = Path.of(System.getProperty("artifacts.dir"));
        // A previous run of this build leaves an exploded WAR, compiled JSPs and logs behind: start from clean.
        deleteRecursively(home.resolve("webapps/samples"));
        deleteRecursively(home.resolve("work"));
        deleteRecursively(home.resolve("logs"));
        Files.createDirectories(home.resolve("logs"));
        Files.createDirectories(home.resolve("temp"));
        Files.copy(artifacts.resolve("hybrid-connector.jar"), home.resolve("lib/hybrid-connector.jar"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.copy(artifacts.resolve(samplesWar()), home.resolve("webapps/samples.war"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(home.resolve("conf/server.xml"), serverXml());
        // The manager webapp answers only users with its roles; the shipped tomcat-users.xml has none.
        Files.writeString(home.resolve("conf/tomcat-users.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <tomcat-users xmlns="http://tomcat.apache.org/xml" version="1.0">
                  <role rolename="manager-script"/>
                  <user username="%s" password="%s" roles="manager-script"/>
                </tomcat-users>
                """.formatted(MANAGER_USER, MANAGER_PASSWORD));
    }

    static final String MANAGER_USER = "it-manager";
    static final String MANAGER_PASSWORD = "it-manager-secret";

    /**
     * Creates the separate {@code CATALINA_BASE} from clean: the distribution's {@code conf/} with the given server.xml,
     * our jar in {@code lib/}, the samples WAR in {@code webapps/}, and for each of {@code homeWebapps} (e.g.
     * {@code "examples"}) a context file that serves it from {@code CATALINA_HOME/webapps} without copying it.
     */
    void installBase(String serverXml, List<String> homeWebapps) throws IOException {
        if (base.equals(home)) {
            throw new IllegalStateException("installBase needs a CATALINA_BASE apart from " + home);
        }
        Path artifacts = Path.of(System.getProperty("artifacts.dir"));
        deleteRecursively(base);
        for (String dir : List.of("conf", "lib", "logs", "temp", "webapps", "work")) {
            Files.createDirectories(base.resolve(dir));
        }
        try (Stream<Path> conf = Files.list(home.resolve("conf"))) {
            for (Path file : (Iterable<Path>) conf.filter(Files::isRegularFile)::iterator) {
                Files.copy(file, base.resolve("conf").resolve(file.getFileName()));
            }
        }
        Files.writeString(base.resolve("conf/server.xml"), serverXml);
        // CATALINA_BASE/lib comes first on Tomcat's common class path. The classes that run in CATALINA_HOME put
        // the same file (artifacts/hybrid-connector.jar) into its lib/, so a second copy there changes nothing.
        Files.copy(artifacts.resolve("hybrid-connector.jar"), base.resolve("lib/hybrid-connector.jar"));
        Files.copy(artifacts.resolve(samplesWar()), base.resolve("webapps/samples.war"));
        Path contexts = Files.createDirectories(base.resolve("conf/Catalina/localhost"));
        for (String webapp : homeWebapps) {
            Files.writeString(contexts.resolve(webapp + ".xml"),
                    "<Context docBase=\"" + home.resolve("webapps").resolve(webapp) + "\" />\n");
        }
    }

    /** The samples built for this line: Tomcat 9.0 is the {@code javax.servlet} line. Deployed as {@code /samples}. */
    private String samplesWar() {
        return version.startsWith("9.") ? "samples-javax.war" : "samples.war";
    }

    /** The shipped example for this Tomcat line, with its three fixed ports replaced by free ones. */
    private String serverXml() throws IOException {
        String line = version.startsWith("9.") ? "tomcat-9.0" : version.startsWith("10.") ? "tomcat-10.1"
                : "tomcat-11.0";
        String xml;
        try (InputStream in = TomcatDistribution.class.getResourceAsStream("/config-examples/" + line + "/server.xml")) {
            if (in == null) {
                throw new IllegalStateException("config-examples/" + line + "/server.xml not on the test classpath");
            }
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String edited = replaceOnce(xml, "port=\"8005\"", shutdownPort);
        edited = replaceOnce(edited, "port=\"8080\"", hybridPort);
        return replaceOnce(edited, "port=\"8081\"", nioPort);
    }

    private static String replaceOnce(String xml, String attribute, int port) {
        int at = xml.indexOf(attribute);
        if (at < 0 || xml.indexOf(attribute, at + 1) >= 0) {
            throw new IllegalStateException("expected exactly one " + attribute + " in the example server.xml");
        }
        return xml.replace(attribute, "port=\"" + port + "\"");
    }

    void start() throws IOException, InterruptedException {
        process = catalina("run").redirectErrorStream(true)
                .redirectOutput(catalinaOutFile().toFile()).start();
        // catalina.sh run exec's java, so the process we hold is Tomcat's JVM itself.
        killOnExit = new Thread(process::destroyForcibly, "kill-tomcat-" + version);
        Runtime.getRuntime().addShutdownHook(killOnExit);
        awaitPortsOpen();
    }

    /** Waits until Tomcat logged that start-up finished and both HTTP connectors accept connections. */
    private void awaitPortsOpen() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("Tomcat " + version + " exited with " + process.exitValue() +
                        " during start-up:\n" + catalinaOut());
            }
            if (catalinaOut().contains("Server startup in") && accepts(hybridPort) && accepts(nioPort)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("Tomcat " + version + " did not start within " + START_TIMEOUT_SECONDS + " s:\n" +
                catalinaOut());
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /**
     * Stops Tomcat the operator's way ({@code catalina.sh stop}, through the shutdown port) and waits for the JVM to
     * exit. Kills it only if it did not exit in time.
     *
     * @return true when Tomcat exited by itself, false when it had to be killed (or was never started)
     */
    boolean stop() throws IOException, InterruptedException {
        if (process == null) {
            return false;
        }
        try {
            if (!process.isAlive()) {
                return false;
            }
            Process stop = catalina("stop").redirectErrorStream(true)
                    .redirectOutput(base.resolve("logs/stop.out").toFile()).start();
            if (!stop.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                stop.destroyForcibly();
            }
            if (process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                return true;
            }
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return false;
        } finally {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        }
    }

    /** Kills Tomcat if it is still running: the safety net behind {@link #stop} for a test that failed early. */
    void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            try {
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run: nothing to remove
            }
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    int exitValue() {
        return process.exitValue();
    }

    private ProcessBuilder catalina(String command) {
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/catalina.sh").toString(), command);
        pb.directory(base.toFile());
        // Only what this test chooses: nothing from the developer's or CI's environment reaches catalina.sh.
        pb.environment().keySet().removeIf(k -> k.startsWith("CATALINA_") || k.startsWith("JPDA_") ||
                k.equals("JAVA_OPTS") || k.equals("JRE_HOME") || k.equals("LOGGING_CONFIG"));
        pb.environment().put("CATALINA_HOME", home.toString());
        pb.environment().put("CATALINA_BASE", base.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
        return pb;
    }

    Path catalinaOutFile() {
        return base.resolve("logs/catalina.out");
    }

    String catalinaOut() {
        try {
            Path out = catalinaOutFile();
            return Files.exists(out) ? Files.readString(out, StandardCharsets.ISO_8859_1) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The SEVERE records in {@code catalina.out}: each is its header line and the lines that follow it (a stack
     * trace) up to the next time-stamped line.
     */
    List<String> severeRecords() {
        List<String> records = new ArrayList<>();
        StringBuilder current = null;
        for (String line : catalinaOut().split("\n")) {
            boolean header = line.length() > 24 && Character.isDigit(line.charAt(0)) && line.charAt(2) == '-';
            if (header) {
                if (current != null) {
                    records.add(current.toString());
                }
                current = line.contains(" SEVERE ") ? new StringBuilder(line) : null;
            } else if (current != null) {
                current.append('\n').append(line);
            }
        }
        if (current != null) {
            records.add(current.toString());
        }
        return records;
    }

    private static int[] freePorts(int count) throws IOException {
        // Held open together so that they are distinct; closed before Tomcat binds them.
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
