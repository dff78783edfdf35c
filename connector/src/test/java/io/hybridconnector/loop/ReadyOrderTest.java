package io.hybridconnector.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A loop whose rounds back up serves its ready connections least recently served first, not in the order the
 * level-triggered selector reports them (which keeps the previous round's order, whenever the next requests came).
 * Real selector and pipes, no HTTP: each connection's run takes 6 ms, so two make a backed-up round.
 */
class ReadyOrderTest {

    @Test
    void aConnectionThatWaitedLongestGoesFirstAfterABackedUpRound() throws Exception {
        try (LoopFixture fixture = new LoopFixture(10_000, -1)) {
            List<String> served = new CopyOnWriteArrayList<>();
            Served a = new Served("a", fixture.loop, served);
            Served b = new Served("b", fixture.loop, served);
            Served c = new Served("c", fixture.loop, served);
            for (Served s : List.of(a, b, c)) {
                s.register();
            }
            // round 1 serves a and b; while a runs, c's request arrives; while b runs, a's next one
            a.whenServed = () -> c.send();
            b.whenServed = () -> a.send();
            LoopFixture.holdTheLoopWhile(fixture.loop, () -> {
                a.send();
                b.send();
            });
            assertTrue(c.done.await(5, TimeUnit.SECONDS) && a.servedTwice.await(5, TimeUnit.SECONDS), "served");
            // epoll reports a (back on its ready list since round 1) before c: arrival order is c, then a
            assertEquals(List.of("a", "b", "c", "a"), served);
            assertTrue(fixture.counters.getReorderedBatches() >= 1, "the round was reordered");
        }
    }

    /**
     * Two connections served in the same backed-up round come back in the order they were served, not in the
     * selector's: it re-lists the keys it reported in the order it reported them, and the loop had served them in
     * another order (least recently served first). Ordered by round, the two tie and the selector's order won, so the
     * connection whose next request came first waited behind the other.
     */
    @Test
    void connectionsServedInOneRoundComeBackInTheOrderTheyWereServed() throws Exception {
        try (LoopFixture fixture = new LoopFixture(10_000, -1)) {
            List<String> served = new CopyOnWriteArrayList<>();
            Served a = new Served("a", fixture.loop, served);
            Served b = new Served("b", fixture.loop, served);
            a.register();
            b.register();
            b.send(); // b is served long before a
            assertTrue(b.done.await(5, TimeUnit.SECONDS), "b served");
            a.send();
            assertTrue(a.done.await(5, TimeUnit.SECONDS), "a served");
            served.clear();
            // one backed-up round: the selector reports a, b (their readiness order); least recently served is b
            b.whenServed = b::send; // b's next request arrives while b runs, a's only after
            a.whenServed = a::send;
            LoopFixture.holdTheLoopWhile(fixture.loop, () -> {
                a.send();
                b.send();
                LoopFixture.spin(ReadyOrder.BACKED_UP_ROUND_NANOS / 1_000_000 + 5);
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (served.size() < 4 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(1);
            }
            // the next round finds both ready again, listed a, b by the selector; b's request came first
            assertEquals(List.of("b", "a", "b", "a"), served);
        }
    }

    @Test
    void connectionsWhoseLastRunWaitedOffTheLoopAreServedAheadOfTheBatch() throws Exception {
        try (LoopFixture fixture = new LoopFixture(10_000, -1)) {
            List<String> served = new CopyOnWriteArrayList<>();
            List<Served> all = List.of(new Served("a", fixture.loop, served), new Served("b", fixture.loop, served),
                    new Served("c", fixture.loop, served), new Served("d", fixture.loop, served),
                    new Served("e", fixture.loop, served));
            for (Served s : all) {
                s.register();
            }
            all.get(2).waitedOffLoop = true;
            all.get(4).waitedOffLoop = true;
            LoopFixture.holdTheLoopWhile(fixture.loop, () -> all.forEach(Served::send));
            for (Served s : all) {
                assertTrue(s.done.await(5, TimeUnit.SECONDS), s.name + " served");
            }
            // one batch, in the order the requests arrived but for c and e, whose requests will wait off the loop
            assertEquals(List.of("c", "e", "a", "b", "d"), served);
        }
    }

    /** A pipe as a connection: each byte is a request whose run spins 6 ms. */
    private static final class Served extends PipeChannel {
        final EventLoop loop;
        final List<String> served;
        final CountDownLatch done = new CountDownLatch(1);
        final CountDownLatch servedTwice = new CountDownLatch(2);
        volatile Runnable whenServed = () -> { };
        volatile boolean waitedOffLoop;

        Served(String name, EventLoop loop, List<String> served) throws IOException {
            super(name);
            this.loop = loop;
            this.served = served;
        }

        void register() throws InterruptedException {
            LoopFixture.register(loop, this);
        }

        void send() {
            try {
                ready();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public boolean lastRunWaitedOffLoop() {
            return waitedOffLoop;
        }

        @Override
        public boolean onReady(int readyOps) {
            consume();
            long seq = loop.beginRun(this);
            served.add(name);
            Runnable then = whenServed;
            whenServed = () -> { };
            then.run();
            LoopFixture.spin(6);
            boolean leading = loop.endRun(seq);
            done.countDown();
            servedTwice.countDown();
            return leading;
        }
    }
}
