package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what {@link HybridHttp11Protocol}'s logger writes while open, to read the one line that gives the settings
 * in force at start ({@code HybridHttp11Protocol [name] threads=... }). Any thread may log; the test thread reads.
 */
final class StartLine extends Handler implements AutoCloseable {

    private final Logger logger = Logger.getLogger(HybridHttp11Protocol.class.getName());
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

    StartLine() {
        logger.addHandler(this);
    }

    /** @return the one settings line logged so far; fails the test unless there is exactly one */
    String settings() {
        List<String> start;
        synchronized (lines) {
            start = lines.stream().filter(l -> l.startsWith("HybridHttp11Protocol [")).toList();
        }
        assertEquals(1, start.size(), "one start line: " + lines);
        return start.get(0);
    }

    @Override
    public void publish(LogRecord r) {
        lines.add(r.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
