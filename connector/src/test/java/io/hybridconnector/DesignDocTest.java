package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * DESIGN.md stays true (issue 18 item 5): every class, {@code Class.member} and package it names in backticks exists.
 * <p>
 * What counts as a name: a backticked span that is a class name ({@code EventLoop}, {@code HandOffPolicy.Decision}),
 * optionally with a package folder ({@code classify/RequestClassifier}) or fully qualified
 * ({@code io.hybridconnector.tls.TlsChannel}), or a class and a member ({@code EventLoop.submit},
 * {@code WriteBehindBuffer.isEmpty()}, {@code HybridSocketWrapper.markContended/unlockAndResume} for two). Attribute
 * names, constants and states ({@code OP_READ}), file paths and code fragments are not names and are skipped.
 * <p>
 * Where a name must exist: the connector's main classes (checked by reflection, members inherited from Tomcat
 * included); a test class of this repository (any {@code src/test/java}, named in DESIGN.md as the evidence for a
 * claim; a member is looked for in its source); an attribute of the connector's MBean ({@code StallHandOffs}); or a
 * Tomcat or JDK class on {@link #REFERRED}, the explicit list of outside classes DESIGN.md refers to on purpose, each
 * with the reason, and checked on the class path where it is there.
 */
class DesignDocTest {

    /**
     * An outside class DESIGN.md refers to on purpose: where it lives ({@code null}: not on this module's class path,
     * so not checked), why it is named, and, for one not on the class path, the members DESIGN.md may name.
     */
    private record Referred(String fullName, String reason, List<String> uncheckedMembers) {
    }

    private static final Map<String,Referred> REFERRED = new HashMap<>();

    static {
        refer("AbstractEndpoint", "org.apache.tomcat.util.net.AbstractEndpoint", "the endpoint's Tomcat base class");
        refer("AbstractJsseEndpoint", "org.apache.tomcat.util.net.AbstractJsseEndpoint",
                "Tomcat 10.1's TLS endpoint base, which TlsEngineFactory follows (gone in 11)");
        refer("Acceptor", "org.apache.tomcat.util.net.Acceptor", "Tomcat's accept thread, which the endpoint uses");
        refer("ThreadLocalLeakPreventionListener", "org.apache.catalina.core.ThreadLocalLeakPreventionListener",
                "Tomcat's listener that renews connector threads after a context stopped (TomcatExecutorView)");
        refer("ThreadPoolExecutor", "org.apache.tomcat.util.threads.ThreadPoolExecutor",
                "the executor type that listener renews, which TomcatExecutorView extends");
        refer("StandardThreadExecutor", "org.apache.catalina.core.StandardThreadExecutor",
                "a shared <Executor>, the other type that listener renews");
        refer("NioEndpoint", "org.apache.tomcat.util.net.NioEndpoint", "stock NIO: what we are compared with and follow");
        refer("Http11NioProtocol", "org.apache.coyote.http11.Http11NioProtocol",
                "stock NIO's protocol, whose attributes ours mirror (re-sync checklist)");
        refer("SecureNioChannel", "org.apache.tomcat.util.net.SecureNioChannel", "what TlsChannel follows");
        refer("TLSClientHelloExtractor", "org.apache.tomcat.util.net.TLSClientHelloExtractor",
                "Tomcat's hello parser, which TlsChannel calls (re-sync checklist)");
        REFERRED.put("AbstractNetworkChannelEndpoint", new Referred(null,
                "Tomcat 11's home of getLocalAddress (re-sync checklist); the tests compile against Tomcat 10.1",
                List.of("getLocalAddress")));
        refer("ThreadMXBean", "java.lang.management.ThreadMXBean",
                "the JDK's per-thread CPU clock, which TimeSlicing reads for the threads that work off the loops");
        REFERRED.put("AbstractNioByteChannel", new Referred(null,
                "Netty's channel base, whose doWrite contract the write strategies' contract is written like; " +
                        "Netty is not on the class path (only netty-buffer is shaded)", List.of("doWrite")));
        refer("JreCompat", "org.apache.tomcat.util.compat.JreCompat",
                "Tomcat's JDK-version bridge: TlsEngineFactory sets key-exchange groups through it");
        refer("SocketWrapperBase", "org.apache.tomcat.util.net.SocketWrapperBase",
                "Tomcat's socket wrapper contract, which HybridSocketWrapper implements");
        refer("SocketBufferHandler", "org.apache.tomcat.util.net.SocketBufferHandler", "Tomcat's per-connection buffers");
        refer("SSLHostConfig", "org.apache.tomcat.util.net.SSLHostConfig", "TLS configuration stays Tomcat's");
        refer("SSLHostConfigCertificate", "org.apache.tomcat.util.net.SSLHostConfigCertificate",
                "TLS configuration stays Tomcat's");
        refer("SSLImplementation", "org.apache.tomcat.util.net.SSLImplementation", "makes the TLS contexts (JSSE)");
        refer("SSLSupport", "org.apache.tomcat.util.net.SSLSupport", "what Tomcat reads the TLS session through");
        refer("SSLContext", "org.apache.tomcat.util.net.SSLContext", "Tomcat's TLS context wrapper");
        refer("TaskThreadFactory", "org.apache.tomcat.util.threads.TaskThreadFactory",
                "Tomcat resets the same thread state (ConnectorThreads)");
        refer("Http11Processor", "org.apache.coyote.http11.Http11Processor", "Tomcat's HTTP/1.1 parser, run inline");
        refer("Http2UpgradeHandler", "org.apache.coyote.http2.Http2UpgradeHandler", "Tomcat's HTTP/2, streams hand-off");
        refer("Http2AsyncUpgradeHandler", "org.apache.coyote.http2.Http2AsyncUpgradeHandler",
                "Tomcat's HTTP/2 over asynchronous socket operations");
        refer("Connector", "org.apache.catalina.connector.Connector", "Tomcat's connector, which pauses the endpoint");
        refer("Tomcat", "org.apache.catalina.startup.Tomcat", "embedded Tomcat, whose stop the Stop section describes");
        refer("DefaultServlet", "org.apache.catalina.servlets.DefaultServlet", "serves static files with sendfile");
        REFERRED.put("WsSession", new Referred(null,
                "Tomcat's WebSocket session (tomcat-embed-websocket, not on this module's class path): its close frame " +
                "at stop is a symptom the Stop section quotes", List.of("sendCloseMessage")));
        refer("AsyncContext", "jakarta.servlet.AsyncContext", "Servlet API: where async events come from");
        refer("WriteListener", "jakarta.servlet.WriteListener", "Servlet API: non-blocking writes");
        refer("SSLEngine", "javax.net.ssl.SSLEngine", "JDK TLS engine");
        refer("SocketChannel", "java.nio.channels.SocketChannel", "JDK");
        refer("Selector", "java.nio.channels.Selector", "JDK");
        refer("FileChannel", "java.nio.channels.FileChannel", "JDK: sendfile(2)");
        refer("SocketTimeoutException", "java.net.SocketTimeoutException", "JDK: what a write deadline throws");
        refer("ClosedChannelException", "java.nio.channels.ClosedChannelException", "JDK: a symptom DESIGN.md quotes");
        refer("HybridConnector", null, "the JMX type name under which ConnectorStats is registered, not a class");
    }

    private static void refer(String simpleName, String fullName, String reason) {
        REFERRED.put(simpleName, new Referred(fullName, reason, List.of()));
    }

    private static final Pattern SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*");
    private static final String BASE_PACKAGE = "io.hybridconnector";

    private final Path module = Paths.get("").toAbsolutePath();
    /** Main classes by simple name (nested ones too), as binary names. */
    private final Map<String,String> mainClasses = new HashMap<>();
    /** Test sources of the whole repository, by class name. */
    private final Map<String,Path> testSources = new HashMap<>();

    @Test
    void everyClassAndMemberNamedInDesignExists() throws IOException {
        Path design = module.resolve("DESIGN.md");
        assertTrue(Files.isRegularFile(design), "run from the connector module: no " + design);
        List<String> missing = new ArrayList<>();
        int checked = problems(Files.readAllLines(design, StandardCharsets.UTF_8), missing);
        assertTrue(checked > 100, "found only " + checked + " names in DESIGN.md: is the parser broken?");
        assertTrue(missing.isEmpty(), "DESIGN.md names what does not exist:\n" + String.join("\n", missing));
    }

    /** The check itself bites: names that do not exist, or not where the text says, are reported; real ones are not. */
    @Test
    void reportsNamesThatDoNotExist() throws IOException {
        List<String> missing = new ArrayList<>();
        int checked = problems(List.of(
                "`ResponseClassifier` in `write/`, `write/RequestClassifier`, `EventLoop.noSuchMethod`,",
                "`HybridSocketWrapper.flushBehind/noSuchOne`, `NioEndpoint.NioSocketWrapper.noSuch`, `NoSuchTest.x`",
                "real: `classify/RequestClassifier`, `EventLoop.submit`, `HandOffPolicy.Decision`, `StallHandOffs`,",
                "`NioEndpoint.NioSocketWrapper.populateRemoteAddr`, `io.hybridconnector.tls.TlsEngineFactory`, `TlsTest`",
                "not names: `OP_READ`, `server.xml`, `writeStrategy=\"spin\"`, `/proc/self/stat`, `read()`"), missing);
        assertEquals(13, checked, String.join("\n", missing));
        assertEquals(6, missing.size(), String.join("\n", missing));
        for (String bad : List.of("ResponseClassifier", "write/RequestClassifier", "noSuchMethod", "noSuchOne",
                "NioSocketWrapper.noSuch", "NoSuchTest.x")) {
            assertTrue(missing.stream().anyMatch(m -> m.contains("`" + bad) || m.contains(bad + "`")),
                    bad + " not reported: " + missing);
        }
    }

    /** @return how many names the lines hold; what does not exist is added to {@code missing} */
    private int problems(List<String> lines, List<String> missing) throws IOException {
        if (mainClasses.isEmpty()) {
            indexMainClasses(module.resolve("src/main/java"));
            indexTestSources(module.getParent());
        }
        int checked = 0;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = SPAN.matcher(lines.get(i));
            while (m.find()) {
                String problem = check(m.group(1).trim());
                if (problem == null) {
                    continue;
                }
                if (!problem.isEmpty()) {
                    missing.add("DESIGN.md:" + (i + 1) + ": `" + m.group(1) + "`: " + problem);
                }
                checked++;
            }
        }
        return checked;
    }

    /** @return {@code null} if the span is not a name, "" if it exists, else what is wrong */
    private String check(String span) {
        String s = span.endsWith("()") ? span.substring(0, span.length() - 2) : span;
        if (s.startsWith(BASE_PACKAGE + ".") || s.equals(BASE_PACKAGE)) {
            return checkQualified(s);
        }
        int paren = s.indexOf('(');
        if (paren > 0 && s.endsWith(")")) {
            s = s.substring(0, paren); // Class.method(arguments)
        }
        String folder = null;
        int slash = s.indexOf('/');
        if (slash > 0 && s.substring(0, slash).matches("[a-z]+") && CLASS_NAME.matcher(s.substring(slash + 1))
                .matches()) {
            folder = s.substring(0, slash); // package folder: classify/RequestClassifier
            s = s.substring(slash + 1);
        }
        int dot = s.indexOf('.');
        String type = dot < 0 ? s : s.substring(0, dot);
        if (!CLASS_NAME.matcher(type).matches()) {
            return null;
        }
        List<String> members = new ArrayList<>();
        if (dot >= 0) {
            for (String member : s.substring(dot + 1).split("/")) {
                if (!member.matches("[A-Za-z_][A-Za-z0-9_.]*")) {
                    return null; // not a name: a file (server.xml), a fragment
                }
                members.add(member);
            }
        }
        return checkType(type, folder, members);
    }

    private String checkQualified(String name) {
        String asPath = name.replace('.', '/');
        Path main = module.resolve("src/main/java");
        if (Files.isDirectory(main.resolve(asPath)) || Files.isRegularFile(main.resolve(asPath + ".java"))) {
            return "";
        }
        return "no such package or class in the connector's main sources";
    }

    private String checkType(String type, String folder, List<String> members) {
        String binary = mainClasses.get(type);
        if (binary != null) {
            if (folder != null && !binary.startsWith(BASE_PACKAGE + "." + folder + ".")) {
                return "is " + binary + ", not in " + folder + "/";
            }
            return checkMembers(load(binary), members);
        }
        if (folder != null) {
            return "no class " + type + " in the connector's main sources";
        }
        Path test = testSources.get(type);
        if (test != null) {
            return checkMembersInSource(test, members);
        }
        if (members.isEmpty() && isMBeanAttribute(type)) {
            return "";
        }
        Referred referred = REFERRED.get(type);
        if (referred == null) {
            return "no class " + type + " in the connector's main or test sources, no MBean attribute of that name, " +
                    "and not on the allow-list of outside classes (DesignDocTest.REFERRED)";
        }
        if (referred.fullName() == null) {
            return referred.uncheckedMembers().containsAll(members) ? "" :
                    type + " is not on the class path: only the members listed with it in REFERRED may be named";
        }
        Class<?> c;
        try {
            c = Class.forName(referred.fullName(), false, getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
            return "allow-listed as " + referred.fullName() + ", which is not on the class path";
        }
        return checkMembers(c, members);
    }

    private static String checkMembers(Class<?> c, List<String> members) {
        for (String member : members) {
            if (!hasMember(c, member)) {
                return c.getName() + " has no member " + member;
            }
        }
        return "";
    }

    /** A method, field or nested class of that name, declared by the class or anything it extends or implements. */
    private static boolean hasMember(Class<?> c, String dotted) {
        int dot = dotted.indexOf('.');
        String name = dot < 0 ? dotted : dotted.substring(0, dot);
        Deque<Class<?>> todo = new ArrayDeque<>();
        todo.add(c);
        while (!todo.isEmpty()) {
            Class<?> k = todo.poll();
            for (Class<?> nested : k.getDeclaredClasses()) {
                if (nested.getSimpleName().equals(name)) {
                    return dot < 0 || hasMember(nested, dotted.substring(dot + 1));
                }
            }
            if (dot < 0) {
                for (Method m : k.getDeclaredMethods()) {
                    if (m.getName().equals(name)) {
                        return true;
                    }
                }
                for (Field f : k.getDeclaredFields()) {
                    if (f.getName().equals(name)) {
                        return true;
                    }
                }
            }
            if (k.getSuperclass() != null) {
                todo.add(k.getSuperclass());
            }
            todo.addAll(List.of(k.getInterfaces()));
        }
        return false;
    }

    private static String checkMembersInSource(Path source, List<String> members) {
        String text;
        try {
            text = Files.readString(source, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "cannot read " + source + ": " + e;
        }
        for (String member : members) {
            if (!Pattern.compile("\\b" + Pattern.quote(member) + "\\s*\\(").matcher(text).find()) {
                return source.getFileName() + " declares no " + member;
            }
        }
        return "";
    }

    private boolean isMBeanAttribute(String name) {
        for (Method m : load(BASE_PACKAGE + ".jmx.ConnectorStatsMBean").getMethods()) {
            if (m.getName().equals("get" + name) || m.getName().equals("is" + name)) {
                return true;
            }
        }
        return false;
    }

    private Class<?> load(String binaryName) {
        try {
            return Class.forName(binaryName, false, getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("indexed from the sources but not compiled: " + binaryName, e);
        }
    }

    /** Top-level classes from file names; nested ones from the compiled class (every depth). */
    private void indexMainClasses(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String relative = root.relativize(f).toString();
                String binary = relative.substring(0, relative.length() - 5).replace('/', '.');
                if (binary.endsWith("package-info")) {
                    continue;
                }
                indexClass(load(binary));
            }
        }
    }

    private void indexClass(Class<?> c) {
        mainClasses.putIfAbsent(c.getSimpleName(), c.getName());
        for (Class<?> nested : c.getDeclaredClasses()) {
            indexClass(nested);
        }
    }

    private void indexTestSources(Path repository) throws IOException {
        try (Stream<Path> files = Files.walk(repository)) {
            files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/test/java/") &&
                    !p.toString().contains("/target/"))
                    .forEach(p -> testSources.putIfAbsent(p.getFileName().toString().replace(".java", ""), p));
        }
    }
}
