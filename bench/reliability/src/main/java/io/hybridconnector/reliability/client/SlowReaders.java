package io.hybridconnector.reliability.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Connections that ask for a large body and then read it slowly ({@link #tick} reads a budget per connection) or not
 * at all until {@link #drain}. Non-blocking channels with small receive buffers, driven by the caller's thread.
 */
public final class SlowReaders implements AutoCloseable {

    /** One connection and what it received. */
    private static final class Reader {
        final SocketChannel channel;
        final boolean stalled;
        long received;
        boolean eof;
        boolean reset;

        Reader(SocketChannel channel, boolean stalled) {
            this.channel = channel;
            this.stalled = stalled;
        }
    }

    private final List<Reader> readers = new ArrayList<>();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);
    private final long expectedBytes;

    /**
     * Opens {@code slow + stalled} connections, each sending {@code GET path}; {@code expectedBytes} is the full
     * response (head and body) a reader must get to count as complete.
     */
    public SlowReaders(InetSocketAddress at, String path, int slow, int stalled, long expectedBytes)
            throws IOException {
        this.expectedBytes = expectedBytes;
        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < slow + stalled; i++) {
            SocketChannel ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.SO_RCVBUF, 16 * 1024);
            ch.connect(at);
            ch.write(ByteBuffer.wrap(request));
            ch.configureBlocking(false);
            readers.add(new Reader(ch, i >= slow));
        }
    }

    /** Reads up to {@code budget} bytes from each slow reader. */
    public void tick(int budget) {
        for (Reader r : readers) {
            if (!r.stalled) {
                read(r, budget);
            }
        }
    }

    /** The stalled readers start reading: everything the server still sends, until EOF or {@code quietMillis}. */
    public void drain(long quietMillis) throws InterruptedException {
        long lastProgress = System.nanoTime();
        while ((System.nanoTime() - lastProgress) / 1_000_000 < quietMillis) {
            boolean progress = false;
            for (Reader r : readers) {
                progress |= read(r, Integer.MAX_VALUE) > 0;
            }
            if (progress) {
                lastProgress = System.nanoTime();
            } else {
                Thread.sleep(5);
            }
        }
    }

    private long read(Reader r, int budget) {
        if (r.eof || r.reset) {
            return 0;
        }
        long got = 0;
        try {
            while (got < budget) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), budget - got));
                int n = r.channel.read(buffer);
                if (n < 0) {
                    r.eof = true;
                    break;
                }
                if (n == 0) {
                    break;
                }
                got += n;
            }
        } catch (IOException e) {
            r.reset = true;
        }
        r.received += got;
        return got;
    }

    /** Slow (or, with {@code stalled}, stalled) readers that received the whole response. */
    public int complete(boolean stalled) {
        return (int) readers.stream().filter(r -> r.stalled == stalled && r.received >= expectedBytes).count();
    }

    /** Readers of that kind whose connection the server ended (FIN or reset) before the whole response arrived. */
    public int cut(boolean stalled) {
        return (int) readers.stream().filter(r -> r.stalled == stalled && r.received < expectedBytes
                && (r.eof || r.reset)).count();
    }

    public boolean allSlowDone() {
        return readers.stream().filter(r -> !r.stalled).allMatch(r -> r.received >= expectedBytes || r.eof
                || r.reset);
    }

    @Override
    public void close() {
        for (Reader r : readers) {
            try {
                r.channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
