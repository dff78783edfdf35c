package io.hybridconnector.rubbos.client;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

import io.hybridconnector.rubbos.client.http.BrowserConnection;
import io.hybridconnector.rubbos.client.session.RequestFactory;
import io.hybridconnector.rubbos.client.session.UserSession;
import io.hybridconnector.rubbos.client.stats.Phase;
import io.hybridconnector.rubbos.client.stats.PhaseClock;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.stats.Stats;
import io.hybridconnector.rubbos.client.workload.ThinkTime;
import io.hybridconnector.rubbos.client.workload.TransitionTable;

/**
 * A closed-loop run: a fixed population of emulated users, each on its own thread, through the up ramp, the
 * measured phase and the down ramp; progress printed as it goes. Throughput is whatever the population and the
 * think time produce - there is no arrival rate to set, as in the original.
 * <p>
 * {@link #run()} is called by one thread, which prints progress; the users run on their own threads.
 */
public final class ClientEmulator {

    private final ClientConfig config;
    private final PrintStream out;

    public ClientEmulator(ClientConfig config, PrintStream out) {
        this.config = config;
        this.out = out;
    }

    public RunResult run() throws InterruptedException {
        return run(phase -> { });
    }

    /**
     * Which users run author sessions: exactly {@code round(users * share)} of them, chosen at random (FACTS.md
     * 3.1: a random 10% of the threads; 3.8's mix assumes 10%). A coin per user would make the share itself random:
     * with the runner's seed it gave 13 authors of 200 users and 22 of 300, and the author-only interactions
     * (moderation, review, accept/reject) half as frequent as FACTS.md 3.8.
     */
    static boolean[] authors(int users, double share, Random random) {
        boolean[] author = new boolean[users];
        int[] order = new int[users];
        for (int i = 0; i < users; i++) {
            order[i] = i;
        }
        int count = (int) Math.round(users * share);
        for (int i = 0; i < count; i++) {
            int j = i + random.nextInt(users - i);
            int picked = order[j];
            order[j] = order[i];
            order[i] = picked;
            author[picked] = true;
        }
        return author;
    }

    /**
     * @param onPhase called on the calling thread as each phase starts (null = the run is over), so that a caller
     *                can sample server-side counters over exactly the measured phase
     */
    public RunResult run(java.util.function.Consumer<Phase> onPhase) throws InterruptedException {
        TransitionTable userTable = config.mix().userTable();
        TransitionTable authorTable = config.mix().authorTable();
        ThinkTime think = new ThinkTime(config.thinkMillis());
        Stats stats = new Stats();
        AtomicBoolean stop = new AtomicBoolean();
        PhaseClock clock = new PhaseClock(System.nanoTime(), config.upRamp(), config.run(), config.downRamp());
        ThreadFactory threads = UserThreads.factory();
        List<Thread> users = new ArrayList<>(config.users());
        List<BrowserConnection> connections = new ArrayList<>(config.users());
        Random seeds = new Random(config.seed());
        // Users start spread over the first half of the up ramp rather than all at once, so the ramp measures a
        // warming server, not one burst of N simultaneous home-page requests.
        long spreadMillis = config.upRamp().toMillis() / 2;
        boolean[] authors = authors(config.users(), config.authorShare(), seeds);
        for (int i = 0; i < config.users(); i++) {
            Random random = new Random(config.seed() + i);
            boolean author = authors[i];
            BrowserConnection connection = new BrowserConnection(config.host(), config.port(), 10_000, 60_000);
            connections.add(connection);
            UserSession session = new UserSession(connection, author ? authorTable : userTable,
                    new RequestFactory(config.basePath(), random, config.databaseUsers()), think, stats, clock,
                    random, author, config.databaseUsers(), config.databaseAuthors(), config.maxTransitions(),
                    config.fetchImages(), config.basePath(), stop::get);
            long delay = spreadMillis == 0 ? 0 : (long) (random.nextDouble() * spreadMillis);
            Thread t = threads.newThread(() -> {
                try {
                    Thread.sleep(delay);
                    session.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            users.add(t);
        }
        if (config.progressSeconds() > 0) {
            out.printf(Locale.ROOT, "client: %d users (%s, %.0f%% authors), %s mix, think time mean %d ms, "
                    + "phases %ds/%ds/%ds, http://%s:%d%s%n", config.users(), UserThreads.kind(),
                    100 * config.authorShare(), config.mix().label(), config.thinkMillis(),
                    config.upRamp().toSeconds(), config.run().toSeconds(), config.downRamp().toSeconds(),
                    config.host(), config.port(), config.basePath());
        }
        users.forEach(Thread::start);
        progress(stats, clock, onPhase);
        stop.set(true);
        connections.forEach(BrowserConnection::close);
        for (Thread t : users) {
            t.interrupt();
        }
        for (Thread t : users) {
            t.join(2000);
        }
        return RunResult.of(stats, clock, config.users());
    }

    private void progress(Stats stats, PhaseClock clock, java.util.function.Consumer<Phase> onPhase)
            throws InterruptedException {
        long every = Math.max(1, config.progressSeconds()) * 1_000_000_000L;
        long lastCount = 0;
        long lastTime = clock.startNanos();
        Phase announced = Phase.UP_RAMP;
        onPhase.accept(announced);
        while (true) {
            long now = System.nanoTime();
            long wait = Math.min(clock.nextBoundary(now) - now, every - (now - lastTime));
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            now = System.nanoTime();
            Phase phase = clock.at(now);
            if (phase != announced) {
                announced = phase;
                onPhase.accept(phase);
            }
            if (config.progressSeconds() > 0 && now - lastTime >= every - 1_000_000) {
                long count = stats.completed() + stats.failed();
                out.printf(Locale.ROOT, "  [%4ds] %-9s users=%d interactions=%d errors=%d rate=%.1f/s%n",
                        (now - clock.startNanos()) / 1_000_000_000L, phase == null ? "done" : phase,
                        config.users(), stats.completed(), stats.failed(),
                        (count - lastCount) * 1e9 / (now - lastTime));
                lastCount = count;
                lastTime = now;
            } else if (config.progressSeconds() == 0) {
                lastTime = now;
            }
            if (phase == null) {
                return;
            }
        }
    }
}
