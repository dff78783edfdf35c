package io.hybridconnector.write;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.apache.tomcat.util.net.SendfileDataBase;

/**
 * Sends a static file ({@code useSendfile}, {@code DefaultServlet}) on the request's thread, under the connection's
 * lock, after the response headers have left: with {@code sendfile(2)} from the page cache to the socket, never
 * through the JVM; under TLS, in 64 KB slices through the connection's write strategy. When the socket is full the
 * thread waits for writability with the write deadline ({@link ResponseWriter.Waiter}), so a transfer always
 * completes (or fails) here and Tomcat carries on with keep-alive as usual; no sendfile state lives on the loop.
 */
public final class Sendfile {

    private static final int TLS_SLICE = 64 * 1024;

    private Sendfile() {
    }

    /**
     * Sends {@code data.length} bytes of the file from {@code data.pos}, moving both as bytes leave.
     *
     * @param encrypt whether the writer's channel is the TLS layer: the file must then be read and encrypted
     */
    public static void send(ResponseWriter writer, SendfileDataBase data, boolean encrypt) throws IOException {
        try (FileChannel file = FileChannel.open(Paths.get(data.fileName), StandardOpenOption.READ)) {
            if (encrypt) {
                throughWriter(writer, file, data);
            } else {
                transfer(writer, file, data);
            }
        }
    }

    /** {@code sendfile(2)}: what the kernel takes, then a wait for writability when it takes nothing. */
    private static void transfer(ResponseWriter writer, FileChannel file, SendfileDataBase data) throws IOException {
        while (data.length > 0) {
            long n = file.transferTo(data.pos, data.length, writer.channel);
            writer.counters.wrote(n);
            if (n > 0) {
                data.pos += n;
                data.length -= n;
                writer.waiter.wrote();
            } else {
                writer.waiter.awaitWritable();
            }
        }
    }

    /**
     * TLS: the file cannot go from the page cache to the socket, it must be encrypted. Read in slices and written like
     * any response body, by the connector's write strategy (under {@code hybrid}, what the kernel does not take waits
     * behind, up to the bound).
     */
    private static void throughWriter(ResponseWriter writer, FileChannel file, SendfileDataBase data)
            throws IOException {
        ByteBuffer slice = ByteBuffer.allocate((int) Math.min(data.length, TLS_SLICE));
        while (data.length > 0) {
            slice.clear();
            if (slice.remaining() > data.length) {
                slice.limit((int) data.length);
            }
            int n = file.read(slice, data.pos);
            if (n < 0) {
                throw new EOFException(data.fileName + " is shorter than the response announced");
            }
            slice.flip();
            writer.write(null, slice, null);
            data.pos += n;
            data.length -= n;
            writer.waiter.wrote();
        }
    }
}
