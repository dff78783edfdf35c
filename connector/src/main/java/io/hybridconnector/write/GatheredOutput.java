package io.hybridconnector.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.function.Consumer;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.SocketBufferHandler;

import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.classify.RequestClassifier.RequestClass;

/**
 * When the bytes a response gathered in the connection's socket write buffer leave, once they pass what stock NIO
 * would have sent ({@code stockBytes}, 8 KB; DESIGN.md, "Writes", rule 3): the owner's side of {@link OutputHold}.
 * A request that writes back to back gathers on (a 10 KB response leaves in one write); if it pauses, the stall
 * detector sends what it gathered ({@link #flushHeld}), and from then on the response leaves at stock's size.
 * <p>
 * Owner methods ({@link #afterGathering}, {@link #takeBack}, {@link #serving}): the thread writing the response,
 * under the connection's lock. {@link #flushHeld}: the stall detector's thread, in the hold's {@code FLUSHING} state
 * only, which orders its use of the gathered bytes against the owner's.
 */
public final class GatheredOutput {

    private static final Log log = LogFactory.getLog(GatheredOutput.class);

    /** What the pacing needs from its connection. */
    public interface Owner {
        /** The connection's socket buffers now. Lock, or the detector in {@code FLUSHING}. */
        SocketBufferHandler buffers();

        /** @return whether the calling thread is the one running the connection (not an application's thread) */
        boolean runsConnection();

        /** @return the response's class (method and path, refined by the query), or {@code null} between requests */
        RequestClass requestClass();

        /** Writes the gathered bytes now, blocking, as stock does when its buffer is full. */
        void writeGathered() throws IOException;

        /** Bytes moved: the write deadline starts again. */
        void wrote();
    }

    /** {@code null} if the endpoint was stopped as the connection came: its bytes then leave at stock's size. */
    private final OutputHold hold;
    /** Lists a hold with whoever sends held bytes (the stall detector, or the endpoint's output watcher). */
    private final Consumer<OutputHold> watcher;
    /** Gathered bytes past this many are held only while the request writes back to back. */
    private final int stockBytes;
    private final RequestClassifier classifier;
    private final WriteBehindFlusher flusher;
    private final GatheringByteChannel out;
    private final WriteCounters counters;
    private final Owner owner;
    /**
     * Lock: the current response paused with bytes gathered, or its class did lately; its bytes now leave at
     * {@link #stockBytes}, as stock's.
     */
    private boolean paced;
    /** Lock: the current response's class was asked whether it paces (once per response, at its first 8 KB). */
    private boolean pacingAsked;

    /**
     * @param watcher {@code null} when no one sends held bytes (the endpoint stopped): they leave at stock's size
     */
    public GatheredOutput(Consumer<OutputHold> watcher, int stockBytes, RequestClassifier classifier,
            WriteBehindFlusher flusher, GatheringByteChannel out, WriteCounters counters, Owner owner) {
        this.watcher = watcher;
        this.stockBytes = stockBytes;
        this.classifier = classifier;
        this.flusher = flusher;
        this.out = out;
        this.counters = counters;
        this.owner = owner;
        this.hold = watcher == null ? null : new OutputHold(this::flushHeld);
    }

    /** A new response on the connection. Lock. */
    public void serving() {
        paced = false;
        pacingAsked = false;
    }

    /**
     * After a blocking write into the socket write buffer. Past stock's size, the bytes wait for the request's next
     * write for at most {@link OutputHold#HOLD_NANOS} plus the stall detector's lateness, after which the detector
     * sends them. A response that paused before (or whose class did lately), and a writer that is not the
     * connection's running thread (an asynchronous request's application thread), write now, as stock does. Lock.
     *
     * @param gathered the bytes in the socket write buffer
     */
    public void afterGathering(int gathered) throws IOException {
        if (gathered < stockBytes) {
            return;
        }
        if (hold == null || paced || !owner.runsConnection() || classPaces()) {
            owner.writeGathered();
        } else if (hold.hold(System.nanoTime())) {
            watcher.accept(hold);
        }
    }

    /**
     * Whether the response's class paused lately ({@link RequestClass#paused}), so that even its first 8 KB leave
     * without waiting for the detector. Looked up once per response, and only once some response has paused.
     */
    private boolean classPaces() {
        if (pacingAsked || !classifier.anyPaced()) {
            return false;
        }
        pacingAsked = true;
        RequestClass c = owner.requestClass();
        paced = c != null && c.pacesNext();
        return paced;
    }

    /**
     * Before the owner touches the socket write buffer, the bytes behind or the socket, it takes back bytes it left
     * for the stall detector (waiting for the detector's write if one is under way). A response whose bytes the
     * detector wrote leaves at stock's size from now on; its class too for a while, if the thread was waiting. Lock.
     */
    public void takeBack() {
        if (hold == null) {
            return;
        }
        int flushed = hold.reclaim();
        if (flushed == OutputHold.NOT_FLUSHED || paced) {
            return;
        }
        paced = true;
        // The class learns only from waits of the application's own: a thread that merely lost its CPU for a
        // millisecond between Catalina's 8 KB slice and the response's end would otherwise pace the class's next
        // responses (measured: 1.36 writes per 10 KB response on a loaded machine instead of 1.0).
        RequestClass c = flushed == OutputHold.FLUSHED_WHILE_WAITING ? owner.requestClass() : null;
        if (c != null) {
            c.paused();
        }
    }

    /**
     * The stall detector's thread, while the owner is away from its write path (the hold is FLUSHING, and an owner
     * that comes back waits for this): one write of the gathered bytes, after those behind, never waiting. What the
     * kernel does not take stays where it was, in order, for the owner.
     */
    private void flushHeld() {
        SocketBufferHandler buffers = owner.buffers();
        try {
            if (!flusher.sendOnce()) {
                return;
            }
            buffers.configureWriteBufferForRead();
            ByteBuffer gathered = buffers.getWriteBuffer();
            if (gathered.hasRemaining()) {
                counters.wrote(out.write(gathered));
                counters.pausedFlush();
                owner.wrote();
            }
        } catch (IOException | RuntimeException e) {
            // A reset or closed connection: the owner meets the same error at its next write.
            if (log.isDebugEnabled()) {
                log.debug("Could not send the gathered bytes of a paused request on " + owner, e);
            }
        } finally {
            buffers.configureWriteBufferForWrite();
        }
    }
}
