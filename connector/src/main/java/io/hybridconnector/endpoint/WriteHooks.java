package io.hybridconnector.endpoint;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.classify.RequestClassifier.RequestClass;
import io.hybridconnector.write.GatheredOutput;
import io.hybridconnector.write.ResponseWriter;
import io.hybridconnector.write.WriteBehindFlusher;

import org.apache.tomcat.util.net.SocketBufferHandler;

/**
 * The write path's view of the connection ({@code write/}): waiting for writability, the write deadline of a writer
 * that does not wait, what the loop's flush of bytes behind needs (the lock's contention, interest, failure), and
 * what the pacing of gathered bytes needs (the buffers, the running thread, the response's class).
 */
final class WriteHooks implements ResponseWriter.Waiter, WriteBehindFlusher.Connection, GatheredOutput.Owner {

    private final ConnectionIo c;

    WriteHooks(ConnectionIo connection) {
        this.c = connection;
    }

    @Override
    public void awaitWritable() throws IOException {
        c.awaitWritable();
    }

    @Override
    public void checkStalled(long stalledSinceNanos) throws IOException {
        long timeout = c.getWriteTimeout();
        if (timeout > 0 && System.nanoTime() - stalledSinceNanos > TimeUnit.MILLISECONDS.toNanos(timeout)) {
            c.writeCounters.writeTimeout();
            // As for a writer that waited: the socket stays failed, nothing more may be sent on it.
            SocketTimeoutException e = new SocketTimeoutException("Write timed out after " + timeout +
                    " ms without progress");
            c.failWrites(e);
            throw e;
        }
    }

    @Override
    public void contended() {
        c.contended();
    }

    @Override
    public void unlockAndResume() {
        c.unlockAndResume();
    }

    @Override
    public void wrote() {
        c.wrote();
    }

    @Override
    public void flushed(int ops) {
        c.flushedBehind(ops);
    }

    @Override
    public void failed(IOException cause) {
        c.failWrites(cause);
        c.close();
    }

    @Override
    public SocketBufferHandler buffers() {
        return c.buffers();
    }

    @Override
    public boolean runsConnection() {
        return c.processingThread == Thread.currentThread();
    }

    @Override
    public RequestClass requestClass() {
        return c.requestClass();
    }

    @Override
    public void writeGathered() throws IOException {
        c.doWrite(true);
    }

    @Override
    public String toString() {
        return c.toString();
    }
}
