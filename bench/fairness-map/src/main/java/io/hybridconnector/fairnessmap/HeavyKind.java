package io.hybridconnector.fairnessmap;

import java.math.BigDecimal;
import java.time.Duration;

import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.Fairness;

/**
 * The six kinds of heavy request issue 38 puts beside the light ones, each as the samples WAR serves it: how a cell of
 * the map becomes a {@link Fairness.Scenario}, and roughly how long one of its requests takes, which sizes the cell's
 * windows ({@link Profile#windows}). Immutable; any thread.
 */
enum HeavyKind {

    /** {@code /samples/compute?ms=D}: D ms of the thread's CPU time, however long the core is shared. */
    CPU("cpu", "computing (CPU time)", "%d computing %s ms (CPU time)", true),
    /** {@code /samples/spin?ms=D}: computes for D ms of wall time, as issue 38's JSP did. */
    WALL("wall", "computing (wall time)", "%d computing %s ms (wall time)", true),
    /** {@code /samples/block?ms=D}: sleeps D ms (a database, a remote call). */
    SLEEP("sleep", "sleeping", "%d sleeping %s ms", true),
    /** {@code /samples/sometimes?percent=30&ms=30}: a random 3 in 10 compute 30 ms of CPU time, the rest nothing. */
    SOMETIMES("sometimes", "computing 30 ms 3 times in 10", "%d computing 30 ms 3 times in 10", false),
    /** {@code /samples/size?kb=10240}: 10 MB downloads, as in the main job's fairness rows. */
    DOWNLOAD("download", "downloading 10 MB", "%d downloading 10 MB", false),
    /** POST {@code /samples/upload}: a 32 KB body trickled over D ms ({@link #upload}). */
    UPLOAD("upload", "uploading 32 KB slowly", "%d uploading 32 KB over %s ms", true);

    /** The body of a slow upload. */
    static final int UPLOAD_BYTES = 32 * 1024;
    /** Most pauses in one upload: a piece of the body at least every millisecond, and at most 11 pieces. */
    static final int MAX_UPLOAD_PAUSES = 10;
    /** What a 10 MB download costs the server: making the random body and writing it (an estimate, for windows). */
    private static final double DOWNLOAD_CPU_MS = 30;

    private final String id;
    private final String label;
    /** A scenario's name from the connection count and the duration, e.g. "16 sleeping 2 ms". */
    private final String name;
    private final boolean hasDuration;

    HeavyKind(String id, String label, String name, boolean hasDuration) {
        this.id = id;
        this.label = label;
        this.name = name;
        this.hasDuration = hasDuration;
    }

    /** Short name for options, file names and the CSV. */
    String id() {
        return id;
    }

    String label() {
        return label;
    }

    /** Whether the grid's heavy duration applies (the random 3 in 10 and the downloads have their own). */
    boolean hasDuration() {
        return hasDuration;
    }

    /** The kind whose {@link #id} is this. */
    static HeavyKind byId(String id) {
        for (HeavyKind k : values()) {
            if (k.id.equals(id)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown heavy kind '" + id + "'; kinds: cpu, wall, sleep, sometimes, "
                + "download, upload");
    }

    /** {@code connections} heavy connections of this kind, each request lasting {@code ms} where that applies. */
    Fairness.Scenario scenario(double ms, int connections) {
        String name = String.format(this.name, connections, millis(ms));
        return switch (this) {
            case CPU -> new Fairness.Scenario(name, "/samples/compute?ms=" + millis(ms), connections, -1);
            case WALL -> new Fairness.Scenario(name, "/samples/spin?ms=" + millis(ms), connections, -1);
            case SLEEP -> new Fairness.Scenario(name, "/samples/block?ms=" + millis(ms), connections, -1);
            case SOMETIMES -> new Fairness.Scenario(name, "/samples/sometimes?percent=30&ms=30", connections, -1);
            case DOWNLOAD -> new Fairness.Scenario(name, CellSpec.sizePath("10240"), connections,
                    CellSpec.sizeBytes("10240"));
            case UPLOAD -> new Fairness.Scenario(name, "/samples/upload", connections, -1, upload(ms));
        };
    }

    /**
     * A slow upload lasting about {@code ms}: {@link #UPLOAD_BYTES} in pieces a pause apart, as many pauses as whole
     * milliseconds (1 to {@link #MAX_UPLOAD_PAUSES}). The load generator's selector waits at least a millisecond, so
     * an upload of 0.5 ms lasts about 1 ms.
     */
    static CellSpec.Upload upload(double ms) {
        int pauses = (int) Math.max(1, Math.min(MAX_UPLOAD_PAUSES, Math.floor(ms)));
        return new CellSpec.Upload(UPLOAD_BYTES, pauses + 1, Duration.ofNanos(Math.round(ms * 1e6 / pauses)));
    }

    /**
     * About how long one heavy request takes with only the heavy connections running: CPU-bound kinds share the
     * cores ({@code connections / cores} of them at once per core), the others last their duration. An estimate that
     * sizes warm-ups, windows and timeouts; nothing is judged by it.
     */
    double cycleMillis(double ms, int connections, int cores) {
        double sharing = Math.max(1, (double) connections / cores);
        return switch (this) {
            case CPU -> ms * sharing;
            case WALL, SLEEP -> ms;
            case SOMETIMES -> 30 * Math.max(1, 0.3 * connections / cores);
            case DOWNLOAD -> DOWNLOAD_CPU_MS * sharing;
            case UPLOAD -> Math.max(ms, upload(ms).pieces() - 1);
        };
    }

    /** A duration as the samples' {@code ms} parameter and the tables print it: {@code 0.5}, {@code 20}. */
    static String millis(double ms) {
        return BigDecimal.valueOf(ms).stripTrailingZeros().toPlainString();
    }
}
