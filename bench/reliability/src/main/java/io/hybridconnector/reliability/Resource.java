package io.hybridconnector.reliability;

import java.util.function.ToDoubleFunction;

/**
 * A resource of the server JVM that a long run watches for growth, read from a {@link Snapshot} in the unit the
 * report shows: one place that says which figure "fds" or "heap after GC" is, for the soak's verdicts and its charts
 * alike. Immutable.
 */
public enum Resource {
    FDS("fds", "open file descriptors", "fds", s -> s.fds()),
    THREADS("threads", "threads of the JVM", "threads", s -> s.threads()),
    HEAP_AFTER_GC("heap after GC (MB)", "heap in use after two full GCs", "MB", s -> s.heapBytes() / 1048576.0),
    DIRECT("direct (KB)", "direct ByteBuffers the JDK accounts for", "KB", s -> s.directBytes() / 1024.0),
    RSS("RSS (MB)", "resident set", "MB", s -> s.rssKb() / 1024.0);

    private final String label;
    private final String description;
    private final String unit;
    private final ToDoubleFunction<Snapshot> reader;

    Resource(String label, String description, String unit, ToDoubleFunction<Snapshot> reader) {
        this.label = label;
        this.description = description;
        this.unit = unit;
        this.reader = reader;
    }

    /** As the report's rows name it, with its unit, e.g. {@code heap after GC (MB)}. */
    public String label() {
        return label;
    }

    /** What it is, in words, for a chart's title. */
    public String description() {
        return description;
    }

    public String unit() {
        return unit;
    }

    /** A short name for file names, e.g. {@code heap-after-gc}. */
    public String slug() {
        return name().toLowerCase().replace('_', '-');
    }

    public double of(Snapshot s) {
        return reader.applyAsDouble(s);
    }
}
