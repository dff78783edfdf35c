package io.hybridconnector.loop;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.catalina.core.StandardThreadExecutor;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * A {@link LoopThreadPool} seen as Tomcat's own {@code ThreadPoolExecutor}: what the protocol's {@code getExecutor()}
 * returns while the connector runs on its own threads.
 * <p>
 * Why this type: Tomcat's {@code ThreadLocalLeakPreventionListener} renews a connector's threads after a web
 * application stopped by asking each connector's protocol for {@code getExecutor()} and calling
 * {@code contextStopping()} on it only if it is an {@code org.apache.tomcat.util.threads.ThreadPoolExecutor} or a
 * {@code StandardThreadExecutor} (Tomcat 10.1 and 11.0 alike); the pool itself is neither, so the listener passed it
 * by and the loop threads kept the stopped application's thread locals (issue 39, item 2). This view has no thread
 * and no queue of its own: {@link #execute} and the counts are the pool's, {@link #contextStopping} renews the pool's
 * threads ({@link LoopThreadPool#renewThreads}) and passes the call on to the operator's executor, as the listener
 * would have called it on stock NIO.
 * <p>
 * Only the protocol's {@code getExecutor()} returns it; the endpoint keeps the pool itself as Tomcat's executor, so the
 * endpoint's own calls (HTTP/2 streams, dispatches) do not go through an extra call. Any thread.
 */
public final class TomcatExecutorView extends ThreadPoolExecutor {

    private final LoopThreadPool pool;

    TomcatExecutorView(LoopThreadPool pool) {
        // No core thread, so the superclass starts none; its queue is never used (execute is the pool's).
        super(0, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        this.pool = pool;
    }

    /** @return the pool this view shows */
    public LoopThreadPool pool() {
        return pool;
    }

    /** Runs {@code command} as the endpoint's executor does ({@link LoopThreadPool#execute}). */
    @Override
    public void execute(Runnable command) {
        pool.execute(command);
    }

    /**
     * Called by Tomcat's {@code ThreadLocalLeakPreventionListener}, on the lifecycle thread, after a context stopped:
     * renews the pool's threads, and an operator's executor's as the listener does on stock NIO.
     */
    @Override
    public void contextStopping() {
        pool.renewThreads();
        Executor operators = pool.taskExecutor();
        if (operators instanceof ThreadPoolExecutor) {
            ((ThreadPoolExecutor) operators).contextStopping();
        } else if (operators instanceof StandardThreadExecutor) {
            ((StandardThreadExecutor) operators).contextStopping();
        }
    }

    @Override
    public int getPoolSize() {
        return pool.getPoolSize();
    }

    @Override
    public int getActiveCount() {
        return pool.getActiveCount();
    }

    @Override
    public int getLargestPoolSize() {
        return pool.getPoolSize();
    }

    @Override
    public int getMaximumPoolSize() {
        return pool.getMaxThreads();
    }

    @Override
    public void setMaximumPoolSize(int maximumPoolSize) {
        pool.setMaxThreads(maximumPoolSize);
    }

    @Override
    public String toString() {
        return "TomcatExecutorView[" + pool.getPoolSize() + " threads of " + pool.getMaxThreads() + "]";
    }
}
