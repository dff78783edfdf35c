package io.hybridconnector.loop;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection whose client sends its next request as soon as a response is out, up to a number of them: each run
 * spins for a fixed time, inline, as a request of that length would.
 */
final class RepeatingChannel extends PipeChannel {
    final long runNanos;
    final int requests;
    final CountDownLatch done;
    final AtomicInteger runs = new AtomicInteger();
    volatile boolean stop;
    EventLoop loop;

    /** @param done counted down once {@code requests} ran ({@code null}: nobody waits) */
    RepeatingChannel(String name, long runNanos, int requests, CountDownLatch done) throws IOException {
        super(name);
        this.runNanos = runNanos;
        this.requests = requests;
        this.done = done;
    }

    @Override
    public boolean onReady(int readyOps) {
        consume();
        long seq = loop.beginRun(this);
        LoopFixture.spinNanos(runNanos);
        int n = runs.incrementAndGet();
        boolean leading = loop.endRun(seq);
        if (n < requests && !stop) {
            readyQuietly();
        } else if (n == requests && done != null) {
            done.countDown();
        }
        return leading;
    }
}
