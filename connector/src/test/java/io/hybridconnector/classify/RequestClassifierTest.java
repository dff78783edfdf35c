package io.hybridconnector.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import io.hybridconnector.classify.RequestClassifier.RequestClass;

import org.apache.coyote.Request;
import org.junit.jupiter.api.Test;

/** Classes are paths refined by their query: what one query learns does not decide for another it has seen run. */
class RequestClassifierTest {

    @Test
    void aPathLearnsBlockingFromTwoBlocksInARow() {
        RequestClassifier classifier = new RequestClassifier(16);
        RequestClass path = classifier.lookup("GET /block", null);
        path.ranOnLoop(true);
        assertFalse(path.predictBlocking(), "one stray block (a fresh application's first request) is not enough");
        path.ranOnLoop(true);
        assertTrue(path.predictBlocking());
        assertSame(path, classifier.lookup("GET /block", ""), "an empty query is the path");
    }

    /**
     * Seen once in CI: a 0.1 KB class whose first request (a fresh application) held its loop, and then one timed run
     * that looked like a wait (the JVM stopped the thread for a moment), was learnt blocking and handed its loop off.
     */
    @Test
    void aHeldLoopAndOneShortWaitAreNotTwoBlocks() {
        RequestClassifier classifier = new RequestClassifier(16);
        RequestClass light = classifier.lookup("GET /size", "kb=0.1");
        light.ranOnLoop(true);
        light.waitedOnLoop();
        assertFalse(light.predictBlocking(), "a first request's block and one short wait");
        for (int i = 0; i < 5; i++) {
            light.ranOnLoop(false);
        }
        light.waitedOnLoop();
        assertFalse(light.predictBlocking(), "a short wait after short runs");

        RequestClass database = classifier.lookup("GET /upstream", null);
        database.waitedOnLoop();
        database.waitedOnLoop();
        assertFalse(database.predictBlocking());
        database.waitedOnLoop();
        assertTrue(database.predictBlocking(), "a class that waits on every timed run is learnt in three");
    }

    @Test
    void aLightQueryOfAHeavyPathRunsInlineOnceItRanShort() {
        RequestClassifier classifier = new RequestClassifier(16);
        RequestClass heavy = classifier.lookup("GET /size", "kb=10240");
        heavy.ranOnLoop(true);
        heavy.computed(30_000_000);
        heavy.ranOnLoop(true);
        assertTrue(heavy.predictBlocking());
        assertEquals(30_000_000, heavy.computedNanos());

        RequestClass light = classifier.lookup("GET /size", "kb=0.1");
        assertTrue(light.predictBlocking(), "a query never seen run is predicted as its path");
        assertFalse(light.hasRun());
        light.ranOffLoop(false);
        assertTrue(light.hasRun());
        assertFalse(light.predictBlocking(), "its own short run decides");
        for (int i = 0; i < 100; i++) {
            light.ranOnLoop(false);
        }
        assertTrue(heavy.predictBlocking(), "the light query's runs do not teach the heavy one");
        assertSame(light, classifier.lookup("GET /size", "kb=0.1"));
    }

    @Test
    void strayBlocksOfTwoQueriesDoNotMakeEitherBlocking() {
        RequestClassifier classifier = new RequestClassifier(16);
        classifier.lookup("GET /size", "kb=0.1").ranOnLoop(true); // the application's first request initialised it
        RequestClass first = classifier.lookup("GET /size", "kb=100");
        first.ranOnLoop(true); // its first request loaded the write path's classes
        assertFalse(first.predictBlocking(), "one block of a query, after one of another query of its path");
        assertFalse(classifier.lookup("GET /size", "kb=0.1").predictBlocking());
        first.ranOnLoop(true);
        assertTrue(first.predictBlocking(), "two in a row do");
    }

    @Test
    void aQueryNeverSeenIsPredictedAsItsPath() {
        RequestClassifier classifier = new RequestClassifier(16);
        for (int id = 0; id < 3; id++) {
            RequestClass report = classifier.lookup("GET /report", "id=" + id);
            report.ranOnLoop(true);
            report.computed(50_000_000);
        }
        RequestClass unseen = classifier.lookup("GET /report", "id=73921");
        assertTrue(unseen.predictBlocking(), "the path learnt from its other queries");
        assertEquals(50_000_000, unseen.computedNanos());
        assertTrue(classifier.lookup("GET /report", null).predictBlocking());
        assertEquals(1, classifier.getBlockingClasses(), "blocking classes are counted by path");
    }

    @Test
    void largeResponsesAreLearntHeavyPerQuery() {
        RequestClassifier classifier = new RequestClassifier(16);
        RequestClass big = classifier.lookup("GET /size", "kb=10240");
        big.leftBehind();
        assertTrue(big.isHeavy());
        RequestClass medium = classifier.lookup("GET /size", "kb=100");
        assertTrue(medium.isHeavy(), "a query that wrote nothing yet answers as its path");
        for (int i = 0; i < RequestClassifier.FITS_TO_TURN_LIGHT; i++) {
            medium.fitted();
        }
        assertFalse(medium.isHeavy());
        assertTrue(big.isHeavy(), "the medium query's fits do not make the big one light");
        assertEquals(1, classifier.getHeavyClasses(), "heavy classes are counted by path");
    }

    @Test
    void queriesThatNeverRepeatCostABoundedTableAndKeepThePaths() {
        int capacity = 8;
        RequestClassifier classifier = new RequestClassifier(capacity);
        RequestClass path = classifier.lookup("GET /search", null);
        path.ranOnLoop(true);
        path.ranOnLoop(true);
        for (int q = 0; q < 10 * capacity; q++) {
            RequestClass c = classifier.lookup("GET /search", "q=" + q);
            assertNotNull(c);
            assertTrue(c.predictBlocking(), "query " + q + " did not answer as its path");
            assertTrue(classifier.size() <= capacity + 1, "size " + classifier.size());
        }
        assertTrue(classifier.getQueriedResets() >= 9, "resets: " + classifier.getQueriedResets());
        assertSame(path, classifier.lookup("GET /search", null), "the path survived the resets");
    }

    @Test
    void eachLookupCountsOnceAsAHitOrAMiss() {
        RequestClassifier classifier = new RequestClassifier(16);
        classifier.lookup("GET /size", null);
        classifier.lookup("GET /size", "kb=0.1"); // the query is new; finding its path is not a second lookup
        assertEquals(0, classifier.getHits());
        assertEquals(2, classifier.getMisses());
        classifier.lookup("GET /size", "kb=0.1");
        classifier.lookup("GET /size", null);
        assertEquals(2, classifier.getHits());
        assertEquals(2, classifier.getMisses());
    }

    @Test
    void newPathsBeyondCapacityAreNotRemembered() {
        RequestClassifier classifier = new RequestClassifier(2);
        assertNotNull(classifier.lookup("GET /a", null));
        assertNotNull(classifier.lookup("GET /b", "x=1"));
        assertNull(classifier.lookup("GET /c", null));
        assertNull(classifier.lookup("GET /c", "x=1"), "a query of a path not remembered has no class either");
    }

    @Test
    void aRequestIsClassedByItsBytesAsByItsStrings() {
        RequestClassifier classifier = new RequestClassifier(16);
        RequestClass query = classifier.lookup(request("GET", "/size", "kb=10240"));
        assertSame(query, classifier.lookup("GET /size", "kb=10240"));
        assertSame(classifier.lookup("GET /size", null), classifier.lookup(request("GET", "/size", null)),
                "a query's first lookup left its path's class under the path's name");
        assertSame(classifier.lookup("GET /size", ""), classifier.lookup(request("GET", "/size", "")));
        assertNotSame(query, classifier.lookup(request("POST", "/size", "kb=10240")));
        assertNotSame(query, classifier.lookup(request("GET", "/size", "kb=1024")));
        assertEquals(5, classifier.size());
    }

    @Test
    void aKnownRequestIsLookedUpWithoutAllocating() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RequestClassifier classifier = new RequestClassifier(16);
        Request request = request("GET", "/samples/size", "kb=0.1");
        RequestClass known = classifier.lookup(request);
        classifier.lookup(request);
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++) {
            assertSame(known, classifier.lookup(request));
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, "10,000 lookups allocated " + allocated + " bytes");
    }

    /** A request as Tomcat's HTTP/1.1 parser leaves it: method, path and query as bytes of one buffer. */
    private static Request request(String method, String path, String query) {
        byte[] line = (method + ' ' + path + (query == null ? "" : "?" + query)).getBytes(StandardCharsets.ISO_8859_1);
        Request r = new Request();
        r.method().setBytes(line, 0, method.length());
        int pathStart = method.length() + 1;
        r.requestURI().setBytes(line, pathStart, path.length());
        if (query != null) {
            r.queryString().setBytes(line, pathStart + path.length() + 1, query.length());
        }
        return r;
    }
}
