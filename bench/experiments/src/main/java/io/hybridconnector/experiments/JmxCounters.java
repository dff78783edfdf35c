package io.hybridconnector.experiments;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads our connector's {@code <domain>:type=HybridConnector,name=...} MBean over the Tomcat JVM's local JMX port
 * (plain RMI, no authentication, bound to the connectors' address): the harness runs in another JVM, possibly in the
 * client network namespace. One connection per Tomcat, used from the harness's main thread.
 */
final class JmxCounters implements AutoCloseable {

    /** The counters read at each window edge; deltas are reported per window. */
    static final List<String> ATTRIBUTES = List.of("Requests", "WriteCalls", "ZeroByteWrites", "Spins", "HandOffs",
            "StallHandOffs", "IoHandOffs", "PredictedHandOffs", "ComputedHandOffs",
            "WriteBehindHandOvers", "LoopFlushes", "WriterWaits", "WriteBehindPeakBytes", "ClassifierHeavyClasses",
            "Reclassifications");

    private final JMXConnector connector;
    private final MBeanServerConnection server;

    JmxCounters(String address, int port) throws IOException {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + address + ":" + port + "/jmxrmi");
        this.connector = JMXConnectorFactory.connect(url);
        this.server = connector.getMBeanServerConnection();
    }

    /** The bean of the connector listening on {@code port} (its name ends with {@code -<port>"}). */
    ObjectName beanFor(int port) throws IOException {
        try {
            Set<ObjectName> names = server.queryNames(new ObjectName("*:type=HybridConnector,*"), null);
            for (ObjectName n : names) {
                String name = n.getKeyProperty("name");
                if (name != null && name.replace("\"", "").endsWith("-" + port)) {
                    return n;
                }
            }
            throw new IOException("no HybridConnector MBean for port " + port + " among " + names);
        } catch (JMException e) {
            throw new IOException(e);
        }
    }

    /** Current values of {@link #ATTRIBUTES}. */
    Map<String, Long> read(ObjectName bean) throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        try {
            AttributeList list = server.getAttributes(bean, ATTRIBUTES.toArray(String[]::new));
            for (Attribute a : list.asList()) {
                m.put(a.getName(), ((Number) a.getValue()).longValue());
            }
        } catch (JMException e) {
            throw new IOException(e);
        }
        return m;
    }

    @Override
    public void close() throws IOException {
        connector.close();
    }
}
