package io.hybridconnector.rubbos.client.stats;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.hybridconnector.rubbos.client.workload.State;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Counts, errors and response-time histograms per phase and per state (BACK and END are counted as the original
 * did, as if they were states). Written by every user thread at once: histograms are HdrHistogram's concurrent
 * recorder, counters are adders, so recording never blocks a user.
 */
public final class Stats {

    /** Response times are recorded in microseconds, up to this bound. */
    private static final long MAX_MICROS = 600_000_000L;

    private final Map<Phase, Map<State, Cell>> cells = new EnumMap<>(Phase.class);
    private final Map<Phase, LongAdder> sessions = new EnumMap<>(Phase.class);
    private final Map<Phase, LongAdder> sessionMillis = new EnumMap<>(Phase.class);
    private final Map<Phase, Map<State, LongAdder>> noLink = new EnumMap<>(Phase.class);
    private final Map<Phase, Map<State, LongAdder>> fallback = new EnumMap<>(Phase.class);
    private final Map<Phase, Map<State, LongAdder>> noLinkOn = new EnumMap<>(Phase.class);
    private final Map<Phase, Map<State, LongAdder>> sorryBack = new EnumMap<>(Phase.class);
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /** One phase x state: how many, how many failed, how long. */
    public static final class Cell {
        final LongAdder count = new LongAdder();
        final LongAdder errors = new LongAdder();
        final Histogram micros = new ConcurrentHistogram(MAX_MICROS, 3);

        public long count() {
            return count.sum();
        }

        public long errors() {
            return errors.sum();
        }

        public Histogram histogram() {
            return micros;
        }
    }

    public Stats() {
        for (Phase p : Phase.values()) {
            Map<State, Cell> byState = new EnumMap<>(State.class);
            for (State s : State.values()) {
                byState.put(s, new Cell());
            }
            cells.put(p, byState);
            sessions.put(p, new LongAdder());
            sessionMillis.put(p, new LongAdder());
            noLink.put(p, adders());
            fallback.put(p, adders());
            noLinkOn.put(p, adders());
            sorryBack.put(p, adders());
        }
    }

    /** Records one interaction (page and its images) that completed, well or not, in {@code nanos}. */
    public void record(Phase phase, State state, long nanos, boolean ok) {
        if (ok) {
            completed.incrementAndGet();
        } else {
            failed.incrementAndGet();
        }
        if (phase == null) {
            return;
        }
        Cell cell = cells.get(phase).get(state);
        if (ok) {
            cell.count.increment();
            cell.micros.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1000)));
        } else {
            cell.errors.increment();
        }
    }

    /** Counts a Back or End-of-Session transition. */
    public void transition(Phase phase, State pseudo) {
        if (phase != null) {
            cells.get(phase).get(pseudo).count.increment();
        }
    }

    private static Map<State, LongAdder> adders() {
        Map<State, LongAdder> byState = new EnumMap<>(State.class);
        for (State s : State.values()) {
            byState.put(s, new LongAdder());
        }
        return byState;
    }

    /**
     * Counts a transition to {@code target} that could not be made because the page offered no link to it (a story
     * without comments has no ViewComment link), the page {@code on} that lacked it, and the page
     * {@code requestedInstead} that the Back taken instead re-requested.
     */
    public void noLink(Phase phase, State on, State target, State requestedInstead) {
        if (phase != null) {
            noLink.get(phase).get(target).increment();
            noLinkOn.get(phase).get(on).increment();
            fallback.get(phase).get(requestedInstead).increment();
        }
    }

    /**
     * Counts a transition to {@code target} that was not made because the page before it said "Sorry" (nothing
     * matched), and the page {@code requestedInstead} that the Back taken instead re-requested.
     */
    public void sorryBack(Phase phase, State target, State requestedInstead) {
        if (phase != null) {
            sorryBack.get(phase).get(target).increment();
            fallback.get(phase).get(requestedInstead).increment();
        }
    }

    public void sessionEnded(Phase phase, long millis) {
        if (phase != null) {
            sessions.get(phase).increment();
            sessionMillis.get(phase).add(millis);
        }
    }

    public Cell cell(Phase phase, State state) {
        return cells.get(phase).get(state);
    }

    public long sessions(Phase phase) {
        return sessions.get(phase).sum();
    }

    public long sessionMillis(Phase phase) {
        return sessionMillis.get(phase).sum();
    }

    /** @return transitions to {@code target} that found no link on the page */
    public long noLinks(Phase phase, State target) {
        return noLink.get(phase).get(target).sum();
    }

    /** @return transitions that found no link on a page of {@code state} */
    public long noLinksOn(Phase phase, State state) {
        return noLinkOn.get(phase).get(state).sum();
    }

    /** @return transitions to {@code target} replaced by a Back because the page before said "Sorry" */
    public long sorryBacks(Phase phase, State target) {
        return sorryBack.get(phase).get(target).sum();
    }

    /** @return requests of {@code state} made as the Back that replaced a transition (no link, or a "Sorry" page) */
    public long fallbacks(Phase phase, State state) {
        return fallback.get(phase).get(state).sum();
    }

    /** @return interactions completed so far, all phases (for progress lines) */
    public long completed() {
        return completed.get();
    }

    public long failed() {
        return failed.get();
    }

    /** @return the response times of every interaction of {@code phase}, merged */
    public Histogram total(Phase phase) {
        Histogram all = new Histogram(MAX_MICROS, 3);
        for (State s : State.values()) {
            if (s.isInteraction()) {
                all.add(cells.get(phase).get(s).micros);
            }
        }
        return all;
    }

    public long errors(Phase phase) {
        long errors = 0;
        for (State s : State.values()) {
            errors += cells.get(phase).get(s).errors();
        }
        return errors;
    }
}
