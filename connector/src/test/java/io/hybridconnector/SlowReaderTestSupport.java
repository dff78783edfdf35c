package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;

/** Reading a response head byte by byte, so that the body can then be read at the test's own pace. */
final class SlowReaderTestSupport {

    private SlowReaderTestSupport() {
    }

    static TestServer.Response readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed in headers");
            }
            head.append((char) b);
        }
        return new TestServer.Response(Integer.parseInt(head.substring(9, 12)), head.toString(), new byte[0]);
    }

    /**
     * Reads {@code length} body bytes in 4 KB reads, checking that each is alphanumeric (the test servlets' bodies),
     * and runs {@code pause} after every {@code pauseEvery} bytes: a reader slower than the server.
     *
     * @return the bytes read
     */
    static long readAlphanumericBody(InputStream in, long length, int pauseEvery, Pause pause) throws Exception {
        byte[] buf = new byte[4096];
        long total = 0;
        long sincePause = 0;
        while (total < length) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, length - total));
            assertTrue(n > 0, "connection closed after " + total + " bytes");
            for (int i = 0; i < n; i++) {
                assertTrue(Character.isLetterOrDigit(buf[i]), "corrupt byte at " + (total + i));
            }
            total += n;
            sincePause += n;
            if (sincePause >= pauseEvery) {
                sincePause = 0;
                pause.run();
            }
        }
        return total;
    }

    /** What a slow reader does between reads. */
    @FunctionalInterface
    interface Pause {
        void run() throws Exception;
    }

    static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        throw new IllegalArgumentException("no Content-Length in " + head);
    }
}
