package io.hybridconnector;

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

    static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        throw new IllegalArgumentException("no Content-Length in " + head);
    }
}
