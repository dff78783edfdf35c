package io.hybridconnector.bench.harness.load;

import java.nio.ByteBuffer;

/**
 * Incremental HTTP/1.1 response framing for one connection; runs on the load generator's thread only.
 *
 * <p>It only frames: status code, {@code Content-Length} or {@code Transfer-Encoding: chunked}, {@code Connection:
 * close}. Body bytes are counted, never copied, so a 100 KB response costs no more than its {@code read()} calls.
 * A response that is neither (body delimited by close) is rejected: on a keep-alive benchmark it would mean the
 * server closes after every response, which must show up as an error, not as a quietly slower request.
 *
 * <pre>
 *   STATUS ──► HEADERS ──┬─► LENGTH_BODY ───────────────────────────────► DONE
 *     ▲                  ├─► CHUNK_SIZE ─► CHUNK_DATA ─► CHUNK_END ─┐     ▲
 *     │                  │       ▲ (size 0) │ ◄──────────────────────┘     │
 *     │                  │       └──────────┴─► TRAILERS ─────────────────┤
 *     └── 1xx ◄──────────┴─► (204, 304: no body) ─────────────────────────┘
 * </pre>
 */
public final class ResponseParser {

    /** Longest status, header, chunk-size or trailer line accepted. */
    static final int MAX_LINE = 16 * 1024;

    private enum State { STATUS, HEADERS, LENGTH_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, DONE }

    private final byte[] line = new byte[MAX_LINE];
    private int lineLength;
    private State state = State.STATUS;
    private int status;
    private long contentLength;
    private boolean chunked;
    private boolean close;
    private long remaining;
    private long bodyBytes;

    /** Prepares for the next response on the same connection. */
    public void reset() {
        state = State.STATUS;
        lineLength = 0;
        status = 0;
        contentLength = -1;
        chunked = false;
        close = false;
        remaining = 0;
        bodyBytes = 0;
    }

    public ResponseParser() {
        reset();
    }

    /**
     * Consumes bytes of {@code in} up to the end of the current response.
     *
     * @return true when a complete response has been framed; {@code in}'s position is then just after it (the rest
     *         belongs to the next response); false when more bytes are needed (all of {@code in} was consumed)
     * @throws HttpFramingException when the bytes are not a well-framed HTTP/1.x response
     */
    public boolean parse(ByteBuffer in) throws HttpFramingException {
        while (in.hasRemaining()) {
            switch (state) {
                case LENGTH_BODY:
                case CHUNK_DATA:
                    skipBody(in);
                    break;
                case DONE:
                    return true;
                default:
                    if (readLine(in)) {
                        onLine();
                    }
            }
            if (state == State.DONE) {
                return true;
            }
        }
        return state == State.DONE;
    }

    public boolean isComplete() {
        return state == State.DONE;
    }

    /** True when nothing of a response has been seen yet (an EOF here is a clean close, not a truncated response). */
    public boolean isIdle() {
        return state == State.STATUS && lineLength == 0;
    }

    public int status() {
        return status;
    }

    /** Body bytes of the response (chunk framing excluded). */
    public long bodyBytes() {
        return bodyBytes;
    }

    /** True when the server said {@code Connection: close}. */
    public boolean closeAfter() {
        return close;
    }

    private void skipBody(ByteBuffer in) {
        int n = (int) Math.min(remaining, in.remaining());
        in.position(in.position() + n);
        remaining -= n;
        bodyBytes += n;
        if (remaining == 0) {
            state = state == State.LENGTH_BODY ? State.DONE : State.CHUNK_END;
        }
    }

    /** Appends to the line buffer up to LF; returns true with the line (CR stripped) in line[0..lineLength). */
    private boolean readLine(ByteBuffer in) throws HttpFramingException {
        while (in.hasRemaining()) {
            byte b = in.get();
            if (b == '\n') {
                if (lineLength > 0 && line[lineLength - 1] == '\r') {
                    lineLength--;
                }
                return true;
            }
            if (lineLength == MAX_LINE) {
                throw new HttpFramingException("line longer than " + MAX_LINE + " bytes in state " + state);
            }
            line[lineLength++] = b;
        }
        return false;
    }

    private void onLine() throws HttpFramingException {
        int length = lineLength;
        lineLength = 0;
        switch (state) {
            case STATUS -> onStatusLine(length);
            case HEADERS -> {
                if (length == 0) {
                    onHeadersEnd();
                } else {
                    onHeader(length);
                }
            }
            case CHUNK_SIZE -> onChunkSize(length);
            case CHUNK_END -> {
                if (length != 0) {
                    throw new HttpFramingException("chunk data longer than its size");
                }
                state = State.CHUNK_SIZE;
            }
            case TRAILERS -> {
                if (length == 0) {
                    state = State.DONE;
                }
            }
            default -> throw new IllegalStateException(state.name());
        }
    }

    private void onStatusLine(int length) throws HttpFramingException {
        // "HTTP/1.1 200 OK": version, space, three digits, then a space or the end of the line.
        if (length < 12 || !startsWith("HTTP/1.", 0) || line[8] != ' ' || (length > 12 && line[12] != ' ')) {
            throw new HttpFramingException("bad status line: " + text(0, Math.min(length, 80)));
        }
        int code = 0;
        for (int i = 9; i < 12; i++) {
            int d = line[i] - '0';
            if (d < 0 || d > 9) {
                throw new HttpFramingException("bad status code: " + text(0, length));
            }
            code = code * 10 + d;
        }
        status = code;
        close = line[7] == '0'; // HTTP/1.0 closes unless it says keep-alive; we send 1.1, so 1.0 is unexpected
        state = State.HEADERS;
    }

    private void onHeader(int length) throws HttpFramingException {
        int colon = indexOf((byte) ':', length);
        if (colon <= 0) {
            throw new HttpFramingException("header without a name or colon: " + text(0, Math.min(length, 80)));
        }
        if (nameIs("content-length", colon)) {
            long value = parseDecimal(colon + 1, length);
            if (contentLength >= 0 && contentLength != value) {
                throw new HttpFramingException("two different Content-Length values");
            }
            contentLength = value;
        } else if (nameIs("transfer-encoding", colon)) {
            chunked = valueEndsWithToken("chunked", colon + 1, length);
            if (!chunked) {
                throw new HttpFramingException("transfer-encoding without chunked last: " + text(0, length));
            }
        } else if (nameIs("connection", colon)) {
            String value = text(colon + 1, length).trim().toLowerCase(java.util.Locale.ROOT);
            if (value.contains("close")) {
                close = true;
            } else if (value.contains("keep-alive")) {
                close = false;
            }
        }
    }

    private void onHeadersEnd() throws HttpFramingException {
        if (status >= 100 && status < 200) {
            state = State.STATUS; // 100 Continue, 103 Early Hints: the real response follows
            status = 0;
            contentLength = -1;
            chunked = false;
            return;
        }
        if (status == 204 || status == 304) {
            state = State.DONE;
        } else if (chunked) {
            state = State.CHUNK_SIZE; // chunked wins over Content-Length (RFC 9112 6.3)
        } else if (contentLength >= 0) {
            remaining = contentLength;
            state = remaining == 0 ? State.DONE : State.LENGTH_BODY;
        } else {
            throw new HttpFramingException("status " + status + " without Content-Length or chunked framing");
        }
    }

    private void onChunkSize(int length) throws HttpFramingException {
        int end = indexOf((byte) ';', length); // chunk extensions are ignored
        if (end < 0) {
            end = length;
        }
        long size = 0;
        int digits = 0;
        for (int i = 0; i < end; i++) {
            int b = line[i];
            int d = Character.digit(b, 16);
            if (d < 0) {
                if (b == ' ' || b == '\t') {
                    continue;
                }
                throw new HttpFramingException("bad chunk size: " + text(0, length));
            }
            if (++digits > 15) {
                throw new HttpFramingException("chunk size too large: " + text(0, length));
            }
            size = size * 16 + d;
        }
        if (digits == 0) {
            throw new HttpFramingException("empty chunk size line");
        }
        if (size == 0) {
            state = State.TRAILERS;
        } else {
            remaining = size;
            state = State.CHUNK_DATA;
        }
    }

    private long parseDecimal(int from, int to) throws HttpFramingException {
        long value = 0;
        int digits = 0;
        for (int i = from; i < to; i++) {
            int b = line[i];
            if (b >= '0' && b <= '9') {
                if (++digits > 18) {
                    throw new HttpFramingException("Content-Length too large");
                }
                value = value * 10 + (b - '0');
            } else if (b != ' ' && b != '\t') {
                throw new HttpFramingException("bad Content-Length: " + text(0, to));
            }
        }
        if (digits == 0) {
            throw new HttpFramingException("empty Content-Length");
        }
        return value;
    }

    private boolean nameIs(String lowerName, int colon) {
        if (colon != lowerName.length()) {
            return false;
        }
        for (int i = 0; i < colon; i++) {
            int b = line[i];
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != lowerName.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean valueEndsWithToken(String token, int from, int to) {
        String value = text(from, to).trim().toLowerCase(java.util.Locale.ROOT);
        int comma = value.lastIndexOf(',');
        return value.substring(comma + 1).trim().equals(token);
    }

    private boolean startsWith(String prefix, int at) {
        for (int i = 0; i < prefix.length(); i++) {
            if (line[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private int indexOf(byte b, int length) {
        for (int i = 0; i < length; i++) {
            if (line[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private String text(int from, int to) {
        return new String(line, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
