package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import io.hybridconnector.TrickleClient;

import org.junit.jupiter.api.Test;

/**
 * Issue 15, item 2: a page that writes 8 KB every 100 ms, ten times, never flushing (the samples' {@code /trickle}
 * servlet; the samples' {@code trickle.jsp}, the issue's {@code buffer="none"} page, needs Jasper, which these embedded
 * servers do not have). One test body against stock NIO and ours: the first byte reaches the client no later on ours than on stock (the design's target is stock + 5 ms; the
 * bound here allows a shared CI machine's noise, and the figures are printed), and every byte arrives in order.
 */
class UnflushedOutputParityTest {

    private static final double SLACK_MILLIS = 50;
    private static final int ROUNDS = 3;

    /** Median first-byte time over {@link #ROUNDS} pages, after one warm-up page (a JSP compiles on first use). */
    private static double medianFirstByte(ConnectorUnderTest which, String page, String trailing) throws Exception {
        try (SamplesServer server = new SamplesServer(which)) {
            TrickleClient.fetch(server.connect(), "/samples/" + page + "?kb=8&ms=10&n=10", 8, 10, trailing);
            double[] first = new double[ROUNDS];
            for (int i = 0; i < ROUNDS; i++) {
                first[i] = TrickleClient.fetch(server.connect(), "/samples/" + page + "?kb=8&ms=100&n=10", 8, 10,
                        trailing).firstByteMillis();
            }
            System.out.println("first byte of /samples/" + page + " on " + which + ": " + Arrays.toString(first) +
                    " ms");
            Arrays.sort(first);
            return first[ROUNDS / 2];
        }
    }

    @Test
    void unflushedOutputReachesTheClientAsSoonAsOnStock() throws Exception {
        double stock = medianFirstByte(ConnectorUnderTest.STOCK_NIO, "trickle", "");
        double ours = medianFirstByte(ConnectorUnderTest.HYBRID, "trickle", "");
        // Over TLS stock NIO's first byte comes with the third piece (about 300 ms: measured 303-315 ms), so the bound
        // against stock alone would be loose there: ours must also send the first piece before the page's third.
        assertTrue(ours <= stock + SLACK_MILLIS, "first byte after " + ours + " ms on ours, " + stock + " on stock");
        assertTrue(ours < 300, "ours held the first piece past the third: " + ours + " ms");
    }
}
