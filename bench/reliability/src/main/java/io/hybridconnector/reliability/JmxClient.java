package io.hybridconnector.reliability;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Set;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads the Tomcat JVM over JMX (the JDK's own agent on a loopback port, no authentication): heap, direct buffers,
 * thread names, Tomcat's ThreadPool beans and our connector's counters. Used from the harness's main thread (and the
 * soak's sampler); a JMX connection is thread-safe.
 */
final class JmxClient implements AutoCloseable {

    private final JMXConnector connector;
    private final MBeanServerConnection mbeans;

    private JmxClient(JMXConnector connector) throws IOException {
        this.connector = connector;
        this.mbeans = connector.getMBeanServerConnection();
    }

    /** The JVM options that open the agent on {@code port}, loopback only. */
    static String agentOptions(int port) {
        return "-Dcom.sun.management.jmxremote.port=" + port + " -Dcom.sun.management.jmxremote.rmi.port=" + port
                + " -Dcom.sun.management.jmxremote.host=127.0.0.1 -Djava.rmi.server.hostname=127.0.0.1"
                + " -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false";
    }

    static JmxClient connect(int port) throws IOException {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
        return new JmxClient(JMXConnectorFactory.connect(url));
    }

    /** Runs a full GC in the server (twice: the first may only queue finalizable and phantom-reachable objects). */
    void gc() throws IOException {
        memory().gc();
        memory().gc();
    }

    long heapUsed() throws IOException {
        return memory().getHeapMemoryUsage().getUsed();
    }

    /** Bytes of direct {@code ByteBuffer}s the JDK accounts for ({@code java.nio:type=BufferPool,name=direct}). */
    long directBytes() throws IOException {
        return ((Number) attribute("java.nio:type=BufferPool,name=direct", "MemoryUsed")).longValue();
    }

    /** Live threads whose name mentions the port: the connector's acceptor, poller or loops, and its workers. */
    int threadsNaming(int port) throws IOException {
        ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.THREAD_MXBEAN_NAME,
                ThreadMXBean.class);
        String needle = "-" + port;
        int n = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains(needle)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Whether the connector on {@code port} accepts on Tomcat's acceptor thread ({@code <name>-Acceptor}; stock NIO, and
     * ours with {@code acceptMode="acceptor"}), which counts the connection it is about to accept before it waits in
     * {@code accept()}; loops that accept for themselves count only connections they accepted.
     */
    boolean hasAcceptorThread(int port) throws IOException {
        ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.THREAD_MXBEAN_NAME,
                ThreadMXBean.class);
        String needle = "-" + port + "-";
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains(needle) && info.getThreadName().endsWith("Acceptor")) {
                return true;
            }
        }
        return false;
    }

    /** An attribute of Tomcat's {@code ThreadPool} bean of the connector on {@code port}, or -1 if it has none. */
    long threadPool(int port, String attribute) throws IOException {
        Object value = attributeOfFirst("Catalina:type=ThreadPool,name=\"*-" + port + "\"", attribute);
        return value instanceof Number n ? n.longValue() : -1;
    }

    /** An attribute of our connector's {@code HybridConnector} bean on {@code port}, or -1 (stock has none). */
    long ours(int port, String attribute) throws IOException {
        Object value = attributeOfFirst("Catalina:type=HybridConnector,name=\"*-" + port + "\"", attribute);
        return value instanceof Number n ? n.longValue() : -1;
    }

    private Object attributeOfFirst(String pattern, String attribute) throws IOException {
        try {
            Set<ObjectName> names = mbeans.queryNames(new ObjectName(pattern), null);
            if (names.isEmpty()) {
                return null;
            }
            return mbeans.getAttribute(names.iterator().next(), attribute);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            return null; // no such attribute on this connector
        }
    }

    private Object attribute(String name, String attribute) throws IOException {
        try {
            return mbeans.getAttribute(new ObjectName(name), attribute);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("reading " + name + " " + attribute, e);
        }
    }

    private MemoryMXBean memory() throws IOException {
        return ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.MEMORY_MXBEAN_NAME,
                MemoryMXBean.class);
    }

    @Override
    public void close() throws IOException {
        connector.close();
    }
}
