package io.hybridconnector.bench.harness.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Walks a command line of {@code --name value} options and {@code --flag}s, for the benchmarks that declare their
 * options in a {@code switch} rather than load a CLI library into the JVM whose CPU they measure. The caller asks for
 * the next option name, decides whether it takes a value, and reads that value here, so every benchmark reports a
 * missing value or an unknown option the same way, with its help text. Used by one thread, once.
 *
 * <pre>{@code
 * Args a = new Args(args, HELP);
 * while (a.hasNext()) {
 *     switch (a.next()) {
 *         case "--rounds" -> rounds = (int) a.positive();
 *         case "--no-pin" -> pin = false;
 *         default -> throw a.unknown();
 *     }
 * }
 * }</pre>
 */
public final class Args {

    private final String[] args;
    private final String help;
    private int next;
    private int optionAt = -1;

    /** @param help appended to every error message (empty for none) */
    public Args(String[] args, String help) {
        this.args = args.clone();
        this.help = help;
    }

    public boolean hasNext() {
        return next < args.length;
    }

    /** The next option's name, e.g. {@code --rounds}. */
    public String next() {
        optionAt = next;
        return args[next++];
    }

    /** The value of the option {@link #next} just returned. */
    public String value() {
        String option = args[optionAt];
        if (next >= args.length || next != optionAt + 1) {
            throw error(option + " needs a value");
        }
        return args[next++];
    }

    /** The value as a number above 0. */
    public double positive() {
        String option = args[optionAt];
        String v = value();
        double d = Double.parseDouble(v);
        if (!(d > 0)) {
            throw error(option + " must be above 0, got " + v);
        }
        return d;
    }

    /** The option {@link #next} just returned and its value if one was read: to echo what the user asked for. */
    public List<String> current() {
        return new ArrayList<>(List.of(args).subList(optionAt, next));
    }

    /** The error for the option {@link #next} just returned when the caller does not know it. */
    public IllegalArgumentException unknown() {
        return error("unknown option " + args[optionAt]);
    }

    public IllegalArgumentException error(String message) {
        return new IllegalArgumentException(help.isEmpty() ? message : message + "\n" + help);
    }
}
