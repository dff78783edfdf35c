package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One {@link EventLoop} with its pool and stall detector, no HTTP: connections are pipes whose {@link LoopChannel}
 * runs a scripted piece of work once, as a run of the loop, when a byte arrives.
 */
final class LoopFixture implements AutoCloseable {

    final LoopCounters counters = new LoopCounters();
    final LoopThreadPool pool = new LoopThreadPool("loop-test", 4, true);
    final StallDetector detector;
    final EventLoop loop;
    private final List<Connection> connections = new ArrayList<>();

    /** Time slicing as the detector decides it ({@code null}: none); the loop itself serves every run inline. */
    final TimeSlicing timeSlicing;

    LoopFixture(long budgetMillis, long warnMillis) throws IOException {
        this(budgetMillis, warnMillis, false);
    }

    LoopFixture(long budgetMillis, long warnMillis, boolean timeSlicing) throws IOException {
        detector = new StallDetector(new HandOffPolicy(budgetMillis), warnMillis);
        loop = new EventLoop(0, pool, counters, detector);
        this.timeSlicing = timeSlicing ? new TimeSlicing(pool, counters, true) : null;
        EventLoop[] loops = { loop };
        pool.start(loops);
        detector.start(loops, this.timeSlicing, "loop-test-detector");
    }

    /** Registers a connection that runs {@code work} when made {@link Connection#ready}. */
    Connection connect(String name, Runnable work) throws Exception {
        Connection c = new Connection(name, work);
        connections.add(c);
        register(loop, c);
        return c;
    }

    /**
     * Registers a connection that is ready already: its first byte is in before the loop can run it. A run that makes
     * its own connection ready again writes to the pipe this thread made it ready through; made ready after its
     * registration, a run could find this thread still holding the pipe's write lock, park on it for a moment, and be
     * moved as blocked.
     *
     * @param work given the connection itself, which the loop may run before this method returns
     */
    Connection connectReady(String name, Consumer<Connection> work) throws Exception {
        Connection[] self = new Connection[1];
        self[0] = new Connection(name, () -> work.accept(self[0]));
        connections.add(self[0]);
        self[0].ready();
        register(loop, self[0]);
        return self[0];
    }

    /** Registers {@code channel} with {@code loop}'s selector for reads, from a task on its leader. */
    static void register(EventLoop loop, PipeChannel channel) throws InterruptedException {
        CountDownLatch registered = new CountDownLatch(1);
        loop.submit(() -> {
            try {
                loop.assigned();
                loop.register(channel.pipe.source(), SelectionKey.OP_READ, channel);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            registered.countDown();
            return true;
        });
        assertTrue(registered.await(5, TimeUnit.SECONDS), "registration");
    }

    /** Runs {@code sends} while the leader waits in a task, so that the next select finds every byte it sent. */
    static void holdTheLoopWhile(EventLoop loop, Runnable sends) throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        loop.submit(() -> {
            holding.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        });
        assertTrue(holding.await(5, TimeUnit.SECONDS), "the loop ran the task");
        sends.run();
        release.countDown();
    }

    @Override
    public void close() {
        loop.stop();
        detector.stop();
        pool.stop(1000);
        loop.closeSelectorIfOpen();
        connections.forEach(Connection::closeOnStop); // the pipes the loop did not close: two descriptors each
    }

    static void spin(long millis) {
        spinNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    static void spinNanos(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A pipe as a connection: a byte makes it ready; its run does the scripted work. */
    final class Connection extends PipeChannel {
        final Runnable work;
        final CountDownLatch ran = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);
        volatile long ranAt;

        Connection(String name, Runnable work) throws IOException {
            super(name);
            this.work = work;
        }

        @Override
        public boolean onReady(int readyOps) {
            consume();
            ranAt = System.nanoTime();
            long seq = loop.beginRun(this);
            ran.countDown();
            work.run();
            boolean leading = loop.endRun(seq);
            done.countDown();
            return leading;
        }
    }
}
