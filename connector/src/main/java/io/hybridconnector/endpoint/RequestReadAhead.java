package io.hybridconnector.endpoint;

import java.nio.ByteBuffer;

/**
 * Tells from the first bytes of a new HTTP/1.1 request whether it can run without waiting for its client: its head is
 * complete and so is its body, or the connection's read buffer is full. Until then the loop holds the request (issue
 * 40): it waits for more bytes on the selector, as it waits for any connection, so a client that trickles its head or
 * its body holds no thread. Stock NIO starts the servlet as soon as the head is in, and the servlet's blocking body
 * read then holds a thread for as long as the client cares to trickle (a slow POST).
 * <p>
 * What is held: a head, and a body announced by {@code Content-Length} that fits in the read buffer with its head
 * ({@code socket.appReadBufSize}, 8 KB by default: form posts and JSON calls). A longer body runs once the buffer is
 * full (a client that sent that much is not trickling) and streams to the servlet as on stock NIO. Not held, because
 * the client waits for the server or the bytes say nothing reliable here: {@code Expect: 100-continue}, a
 * {@code Transfer-Encoding}, a malformed or repeated {@code Content-Length} (Tomcat answers those as stock does).
 * <p>
 * The fast path: a {@code GET} or {@code HEAD} whose bytes end with the blank line, the whole of a keep-alive request
 * as it normally arrives, is told apart by its first byte and its last four: no scan. Stateless; the connection keeps
 * when the held request began ({@link #deadlineMillis}).
 */
final class RequestReadAhead {

    private static final byte CR = '\r';
    private static final byte LF = '\n';

    private RequestReadAhead() {
    }

    /**
     * @param request a new request's bytes from position to limit, in a buffer of its connection's read capacity
     * @return whether it can run now
     */
    static boolean runnable(ByteBuffer request) {
        int start = request.position();
        int end = request.limit();
        if (end == start) {
            return false;
        }
        boolean full = end == request.capacity();
        byte first = request.get(start);
        boolean noBody = first == 'G' || first == 'H';
        if (noBody && endsWithBlankLine(request, start, end)) {
            return true;
        }
        int headEnd = headEnd(request, start, end);
        if (headEnd < 0) {
            return full; // a head that fills the buffer: Tomcat answers it (too large) as stock does
        }
        if (noBody) {
            return true;
        }
        long length = announcedBody(request, start, headEnd);
        return length <= 0 || headEnd + length <= end || full;
    }

    /** @return whether the request's head, from position to limit, is complete (its body is what it waits for) */
    static boolean headComplete(ByteBuffer request) {
        return headEnd(request, request.position(), request.limit()) >= 0;
    }

    /**
     * @return when a request held since {@code sinceMillis}, with {@code received} bytes of it in so far, is too slow:
     *         {@code timeoutMillis} from its start, plus a second for every {@code minBytesPerSecond} bytes received
     *         (Apache httpd's {@code mod_reqtimeout}: {@code header=20-40,MinRate=500 body=20,MinRate=500});
     *         {@code Long.MAX_VALUE} when {@code timeoutMillis} is {@code -1}
     */
    static long deadlineMillis(long sinceMillis, int received, long timeoutMillis, int minBytesPerSecond) {
        if (timeoutMillis < 0) {
            return Long.MAX_VALUE;
        }
        long extension = minBytesPerSecond > 0 ? received * 1000L / minBytesPerSecond : 0;
        return sinceMillis + timeoutMillis + extension;
    }

    private static boolean endsWithBlankLine(ByteBuffer b, int start, int end) {
        return end - start >= 4 && b.get(end - 1) == LF && b.get(end - 2) == CR && b.get(end - 3) == LF &&
                b.get(end - 4) == CR;
    }

    /** @return the index just past the head's blank line, or -1 if the head is not complete */
    private static int headEnd(ByteBuffer b, int start, int end) {
        for (int i = start + 3; i < end; i++) {
            if (b.get(i) == LF && b.get(i - 1) == CR && b.get(i - 2) == LF && b.get(i - 3) == CR) {
                return i + 1;
            }
        }
        return -1;
    }

    /**
     * @return the body length the head announces; 0 for none; -1 when the request must run as it is: a
     *         {@code Transfer-Encoding}, an {@code Expect}, a {@code Content-Length} that is malformed or repeated
     */
    private static long announcedBody(ByteBuffer b, int start, int headEnd) {
        long length = 0;
        int line = nextLine(b, start, headEnd);
        while (line < headEnd - 2) {
            int eol = nextLine(b, line, headEnd);
            if (startsWithIgnoreCase(b, line, eol, "content-length:")) {
                if (length != 0) {
                    return -1;
                }
                length = digits(b, line + "content-length:".length(), eol - 2);
                if (length <= 0) {
                    return -1;
                }
            } else if (startsWithIgnoreCase(b, line, eol, "transfer-encoding:") ||
                    startsWithIgnoreCase(b, line, eol, "expect:")) {
                return -1;
            }
            line = eol;
        }
        return length;
    }

    /** @return the index just past the line feed that ends the line starting at {@code from} */
    private static int nextLine(ByteBuffer b, int from, int headEnd) {
        for (int i = from; i < headEnd; i++) {
            if (b.get(i) == LF) {
                return i + 1;
            }
        }
        return headEnd;
    }

    private static boolean startsWithIgnoreCase(ByteBuffer b, int from, int end, String name) {
        if (end - from < name.length()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            int c = b.get(from + i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** @return the decimal value between optional blanks in [from, to), or -1 if it is not one */
    private static long digits(ByteBuffer b, int from, int to) {
        while (from < to && (b.get(from) == ' ' || b.get(from) == '\t')) {
            from++;
        }
        while (to > from && (b.get(to - 1) == ' ' || b.get(to - 1) == '\t')) {
            to--;
        }
        if (from == to || to - from > 18) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            int d = b.get(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }
}
