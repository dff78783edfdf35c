package io.hybridconnector.rubbos.client.stats;

import java.util.ArrayList;
import java.util.List;

import io.hybridconnector.rubbos.client.workload.State;

import org.HdrHistogram.Histogram;

/**
 * The measured phase of one run, reduced to numbers: totals and one row per state. Immutable.
 *
 * @param users       emulated users
 * @param seconds     length of the measured phase
 * @param interactions interactions completed without error
 * @param errors      interactions that failed
 * @param throughput  (interactions + errors) per second, the original's definition
 * @param meanMs      mean response time, ms
 * @param p50Ms       median response time, ms
 * @param p90Ms       90th percentile, ms
 * @param p99Ms       99th percentile, ms
 * @param maxMs       maximum, ms
 * @param sessions    sessions that ended in the phase
 * @param rows        per state, in state order, BACK and END included
 * @param noLinksTo   per state, in state order: transitions to it that found no link on the page
 * @param fallbacks   per state, in state order: its requests made as the Back that replaced such a transition or a
 *                    transition in {@code sorryBacksTo}
 * @param noLinksOn   per state, in state order: transitions that found no link on a page of it
 * @param sorryBacksTo per state, in state order: transitions to it replaced by a Back because the page said "Sorry"
 */
public record RunResult(int users, double seconds, long interactions, long errors, double throughput,
                        double meanMs, double p50Ms, double p90Ms, double p99Ms, double maxMs, long sessions,
                        List<Row> rows, List<Long> noLinksTo, List<Long> fallbacks, List<Long> noLinksOn,
                        List<Long> sorryBacksTo) {

    /** One state's line. */
    public record Row(State state, long count, long errors, double percent, double meanMs, double p50Ms,
                      double p90Ms, double p99Ms, double maxMs) {
    }

    public static RunResult of(Stats stats, PhaseClock clock, int users) {
        Phase phase = Phase.RUN;
        Histogram all = stats.total(phase);
        long errors = stats.errors(phase);
        long requests = all.getTotalCount();
        long everything = requests + errors;
        List<Row> rows = new ArrayList<>();
        List<Long> noLinksTo = new ArrayList<>();
        List<Long> fallbacks = new ArrayList<>();
        List<Long> noLinksOn = new ArrayList<>();
        List<Long> sorryBacksTo = new ArrayList<>();
        for (State s : State.values()) {
            noLinksTo.add(stats.noLinks(phase, s));
            fallbacks.add(stats.fallbacks(phase, s));
            noLinksOn.add(stats.noLinksOn(phase, s));
            sorryBacksTo.add(stats.sorryBacks(phase, s));
            Stats.Cell cell = stats.cell(phase, s);
            Histogram h = cell.histogram();
            boolean timed = s.isInteraction() && h.getTotalCount() > 0;
            rows.add(new Row(s, cell.count(), cell.errors(),
                    everything == 0 ? 0 : 100.0 * (cell.count() + cell.errors()) / everything,
                    timed ? h.getMean() / 1000 : 0, timed ? ms(h, 50) : 0, timed ? ms(h, 90) : 0,
                    timed ? ms(h, 99) : 0, timed ? h.getMaxValue() / 1000.0 : 0));
        }
        double seconds = clock.seconds(phase);
        boolean any = requests > 0;
        return new RunResult(users, seconds, requests, errors, everything / seconds,
                any ? all.getMean() / 1000 : 0, any ? ms(all, 50) : 0, any ? ms(all, 90) : 0,
                any ? ms(all, 99) : 0, any ? all.getMaxValue() / 1000.0 : 0, stats.sessions(phase),
                List.copyOf(rows), List.copyOf(noLinksTo), List.copyOf(fallbacks), List.copyOf(noLinksOn),
                List.copyOf(sorryBacksTo));
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }

    /** @return transitions turned into Back because the page had no link to follow */
    public long noLinks() {
        return noLinksTo.stream().mapToLong(Long::longValue).sum();
    }

    /** @return transitions turned into Back because the page before said "Sorry" */
    public long sorryBacks() {
        return sorryBacksTo.stream().mapToLong(Long::longValue).sum();
    }

    /** @return the row of {@code state} */
    public Row row(State state) {
        return rows.get(state.ordinal());
    }
}
