package io.hybridconnector.it.dist;

import java.io.ByteArrayOutputStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The client side of a WebSocket echo: reassembles the fragments of each text or binary message the server sends
 * and queues the whole message, counting how many fragments it came in; queues pongs; records the close frame.
 * <p>
 * Runs on the JDK HttpClient's threads, which call one method at a time per WebSocket (the Listener contract);
 * the test thread reads only the queues and futures.
 */
final class EchoListener implements WebSocket.Listener {

    /** A whole message: {@code String} for text, {@code byte[]} for binary, with the frames it arrived in. */
    record Message(Object payload, int fragments) {
    }

    /** The server's close frame. */
    record Close(int statusCode, String reason) {
    }

    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();
    private final BlockingQueue<byte[]> pongs = new LinkedBlockingQueue<>();
    private final CompletableFuture<Close> closed = new CompletableFuture<>();
    private final StringBuilder text = new StringBuilder();
    private final ByteArrayOutputStream binary = new ByteArrayOutputStream();
    private int fragments;

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        text.append(data);
        fragments++;
        if (last) {
            messages.add(new Message(text.toString(), fragments));
            text.setLength(0);
            fragments = 0;
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        binary.writeBytes(bytes);
        fragments++;
        if (last) {
            messages.add(new Message(binary.toByteArray(), fragments));
            binary.reset();
            fragments = 0;
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
        byte[] bytes = new byte[message.remaining()];
        message.get(bytes);
        pongs.add(bytes);
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
        closed.complete(new Close(statusCode, reason));
        return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
        closed.completeExceptionally(error);
        messages.add(new Message(error, 0));
    }

    /** The next whole message, or an AssertionError after the timeout or when the socket failed. */
    Message next(long timeoutSeconds) throws InterruptedException {
        Message m = messages.poll(timeoutSeconds, TimeUnit.SECONDS);
        if (m == null) {
            throw new AssertionError("no message from the server within " + timeoutSeconds + " s");
        }
        if (m.payload() instanceof Throwable error) {
            throw new AssertionError("the WebSocket failed", error);
        }
        return m;
    }

    byte[] nextPong(long timeoutSeconds) throws InterruptedException {
        byte[] pong = pongs.poll(timeoutSeconds, TimeUnit.SECONDS);
        if (pong == null) {
            throw new AssertionError("no pong from the server within " + timeoutSeconds + " s");
        }
        return pong;
    }

    CompletableFuture<Close> closed() {
        return closed;
    }
}
