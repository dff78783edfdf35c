package io.hybridconnector.spring.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.hybridconnector.spring.boot.HybridConnectorMeters;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The connector's own counters in actuator and in a Prometheus scrape, under {@code tomcat.hybrid.*} with the
 * connector's name as a tag, equal to what its {@code HybridConnector} MBean says. Ours only: stock NIO has no such
 * MBean (and the starter, switched off, binds nothing: checked too).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HybridMetricsTest {

    private RunningApp ours;
    private RunningApp stock;
    private ObjectName mbean;

    @BeforeAll
    void start() throws Exception {
        ours = RunningApp.start(ConnectorKind.HYBRID);
        stock = RunningApp.start(ConnectorKind.STOCK);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String tag = ours.meters().get("tomcat.hybrid.handoffs").functionCounter().getId().getTag("name");
        Set<ObjectName> names = server.queryNames(new ObjectName("*:type=HybridConnector,*"), null);
        mbean = names.stream().filter(n -> ObjectName.unquote(n.getKeyProperty("name")).equals(tag)).findFirst()
                .orElseThrow(() -> new AssertionError("no HybridConnector MBean named " + tag + " in " + names));
        // A request that sleeps blocks its loop: one hand-off at least, so the counters compared are not all zero.
        assertEquals(200, Http.get(ours.uri("/sleep?ms=50")).statusCode());
        assertEquals(200, Http.get(ours.uri("/big?kb=100")).statusCode());
        // The first actuator requests load classes for tens of ms, long enough to be handed off themselves; after
        // this warm-up, reading a meter changes the counters it reads as little as possible.
        Http.get(ours.uri("/actuator/metrics/tomcat.hybrid.handoffs"));
        Http.get(ours.uri("/actuator/prometheus"));
    }

    @AfterAll
    void stop() {
        ours.close();
        stock.close();
    }

    private long mbeanValue(String meter) throws Exception {
        Object v = ManagementFactory.getPlatformMBeanServer().getAttribute(mbean,
                HybridConnectorMeters.attributeOf(meter));
        return ((Number) v).longValue();
    }

    @Test
    void everyMeterIsInActuatorWithTheConnectorTag() throws Exception {
        String tag = ObjectName.unquote(mbean.getKeyProperty("name"));
        for (String meter : HybridConnectorMeters.meterNames()) {
            HttpResponse<String> r = Http.get(ours.uri("/actuator/metrics/" + meter));
            assertEquals(200, r.statusCode(), meter + ": " + r.body());
            assertTrue(r.body().contains("\"" + tag + "\""), meter + " tagged with " + tag + ": " + r.body());
        }
    }

    @Test
    void countersInActuatorMatchTheMBean() throws Exception {
        // The reading request is itself served (and counted) by the connector it reads: each value must lie between
        // the MBean's value just before and just after it.
        for (String meter : new String[] {"tomcat.hybrid.handoffs", "tomcat.hybrid.handoffs.stall",
                "tomcat.hybrid.requests", "tomcat.hybrid.write.calls", "tomcat.hybrid.classifier.size"}) {
            long before = mbeanValue(meter);
            double actuator = Http.metric(ours, meter);
            long after = mbeanValue(meter);
            assertTrue(before <= actuator && actuator <= after, meter + ": MBean " + before + ".." + after +
                    ", actuator " + actuator);
        }
        assertTrue(Http.metric(ours, "tomcat.hybrid.handoffs.stall") >= 1, "the sleeping request was handed off");
    }

    @Test
    void prometheusScrapeShowsTheCountersWithTheMBeansValues() throws Exception {
        String[][] sampled = {
                {"tomcat.hybrid.handoffs", "tomcat_hybrid_handoffs_total"},
                {"tomcat.hybrid.handoffs.stall", "tomcat_hybrid_handoffs_stall_total"},
                {"tomcat.hybrid.requests", "tomcat_hybrid_requests_total"},
                {"tomcat.hybrid.write.behind.bytes.peak", "tomcat_hybrid_write_behind_bytes_peak_bytes"}};
        long[] before = new long[sampled.length];
        for (int i = 0; i < sampled.length; i++) {
            before[i] = mbeanValue(sampled[i][0]);
        }
        HttpResponse<String> r = Http.get(ours.uri("/actuator/prometheus"));
        assertEquals(200, r.statusCode());
        String tag = ObjectName.unquote(mbean.getKeyProperty("name"));
        for (int i = 0; i < sampled.length; i++) {
            double scraped = sample(r.body(), sampled[i][1], tag);
            long after = mbeanValue(sampled[i][0]);
            assertTrue(before[i] <= scraped && scraped <= after, sampled[i][1] + ": MBean " + before[i] + ".." +
                    after + ", scraped " + scraped);
        }
        assertTrue(sample(r.body(), "tomcat_hybrid_handoffs_total", tag) >= 1);
    }

    @Test
    void stockNioHasNoHybridMeters() throws Exception {
        HttpResponse<String> r = Http.get(stock.uri("/actuator/prometheus"));
        assertEquals(200, r.statusCode());
        assertFalse(r.body().contains("tomcat_hybrid_"), "no hybrid meters on stock NIO");
        assertTrue(r.body().contains("tomcat_threads_busy"), "actuator's own tomcat meters are there");
    }

    /** The value of {@code metric{...name="tag"...}} in a Prometheus text scrape. */
    private static double sample(String scrape, String metric, String tag) {
        Matcher m = Pattern.compile("(?m)^" + metric + "\\{([^}]*)\\}\\s+(\\S+)").matcher(scrape);
        while (m.find()) {
            if (m.group(1).contains("name=\"" + tag + "\"")) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError(metric + "{name=\"" + tag + "\"} not in the scrape:\n" +
                scrape.lines().filter(l -> l.startsWith("tomcat_hybrid")).reduce("", (a, b) -> a + b + "\n"));
    }
}
