package io.hybridconnector.rubbos.client.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * A Markov chain over {@link State}s read from a data file (see {@code browse_only.txt} for the format).
 * <p>
 * The draw keeps the original emulator's semantics, quirks included, because they shape the measured mix: the
 * probabilities of a state are accumulated in state-number order; a line summing to less than 1 leaves the rest
 * in the current state; a line summing to more cuts the states numbered last. Immutable; any thread.
 */
public final class TransitionTable {

    private static final int N = State.values().length;

    private final String name;
    /** probabilities[from][to] */
    private final double[][] probabilities = new double[N][N];
    private final boolean[] defined = new boolean[N];

    private TransitionTable(String name) {
        this.name = name;
    }

    /** Loads one of the tables shipped with the client: browse_only, user_default or author_default. */
    public static TransitionTable builtIn(String name) {
        InputStream in = TransitionTable.class.getResourceAsStream(name + ".txt");
        if (in == null) {
            throw new IllegalArgumentException("no built-in transition table '" + name + "'");
        }
        try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            return parse(name, reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static TransitionTable parse(String name, Reader source) throws IOException {
        TransitionTable table = new TransitionTable(name);
        BufferedReader lines = new BufferedReader(source);
        int number = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            number++;
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] sides = line.split("->");
            if (sides.length != 2) {
                throw new IOException(name + ":" + number + ": expected 'State -> Next p, Next p, ...'");
            }
            State from = state(name, number, sides[0].strip());
            table.defined[from.ordinal()] = true;
            for (String entry : sides[1].split(",")) {
                String[] parts = entry.strip().split("\\s+");
                if (parts.length != 2) {
                    throw new IOException(name + ":" + number + ": bad entry '" + entry.strip() + "'");
                }
                table.probabilities[from.ordinal()][state(name, number, parts[0]).ordinal()] =
                        Double.parseDouble(parts[1]);
            }
        }
        return table;
    }

    private static State state(String file, int line, String name) throws IOException {
        try {
            return State.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ":" + line + ": unknown state '" + name + "'");
        }
    }

    public String name() {
        return name;
    }

    /** @return the next state after {@code current}; a state the table does not describe ends the session */
    public State next(State current, Random random) {
        if (!defined[current.ordinal()]) {
            return State.END;
        }
        double u = random.nextDouble();
        double cumulative = 0;
        double[] row = probabilities[current.ordinal()];
        for (int to = 0; to < N; to++) {
            cumulative += row[to];
            if (u < cumulative) {
                return State.values()[to];
            }
        }
        return current;
    }

    /** @return P(to | from) as written in the table */
    public double probability(State from, State to) {
        return probabilities[from.ordinal()][to.ordinal()];
    }
}
