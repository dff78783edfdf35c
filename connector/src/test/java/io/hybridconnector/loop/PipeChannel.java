package io.hybridconnector.loop;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;

/**
 * A pipe as a connection for loop tests without HTTP: a byte written to the sink makes it ready; what a run does is
 * the subclass's {@link #onReady}. Never times out, never contended.
 */
abstract class PipeChannel implements LoopChannel {

    final String name;
    final Pipe pipe = Pipe.open();
    private long servedAs;
    private boolean ranOverShare;

    PipeChannel(String name) throws IOException {
        this.name = name;
        pipe.source().configureBlocking(false);
    }

    /** Makes the connection ready: one byte, as a request. */
    void ready() throws IOException {
        pipe.sink().write(ByteBuffer.wrap(new byte[] { 1 }));
    }

    /** {@link #ready}, from a run: a pipe whose loop closed it meanwhile is left alone. */
    void readyQuietly() {
        try {
            ready();
        } catch (IOException e) {
            // closed by the fixture's stop
        }
    }

    /** Takes what arrived, so that the connection is not ready again until the next byte. */
    void consume() {
        try {
            pipe.source().read(ByteBuffer.allocate(16));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long servedAs() {
        return servedAs;
    }

    @Override
    public void servedAs(long service) {
        servedAs = service;
    }

    @Override
    public boolean ranOverShare() {
        return ranOverShare;
    }

    @Override
    public void ranOverShare(boolean over) {
        ranOverShare = over;
    }

    @Override
    public boolean checkTimeout(long nowMillis) {
        return true;
    }

    @Override
    public void suspendInterest() {
    }

    @Override
    public boolean resumeIfFree() {
        return true;
    }

    @Override
    public void closeOnStop() {
        try {
            pipe.source().close();
            pipe.sink().close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public String describeRun() {
        return name;
    }
}
