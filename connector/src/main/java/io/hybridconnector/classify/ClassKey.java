package io.hybridconnector.classify;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.tomcat.util.buf.ByteChunk;
import org.apache.tomcat.util.buf.MessageBytes;

/**
 * A request class's name as bytes: method, a space, the path as received and, for a class refined by a query, {@code
 * '?'} and the query. Hash and equality are those of the ISO-8859-1 string of the same bytes, so a key read from a
 * request and one made from strings ({@link #of}) are the same key.
 * <p>
 * Why bytes: every request on a loop is looked up once classes have been learnt, and making strings of the method,
 * path and query, joining them and hashing the result took six allocations and three passes over the bytes per
 * request (about 2.5 % of a 0.1 KB request's CPU, by {@code perf}). A thread reads a request into its own probe
 * ({@link #probe}), reusing its buffer, and the tables are looked up with it; only a class seen for the first time
 * stores a {@link #copy}.
 * <p>
 * Probes are per thread and mutable; stored keys are never changed.
 */
final class ClassKey {

    private static final ThreadLocal<ClassKey> PROBES = ThreadLocal.withInitial(() -> new ClassKey(new byte[256]));

    private byte[] bytes;
    private int length;
    private int hash;
    /** Probe only: where the path ends (its class is the parent of the query's) and the hash up to there. */
    private int pathLength;
    private int pathHash;

    private ClassKey(byte[] bytes) {
        this.bytes = bytes;
    }

    /** @return the calling thread's probe, holding {@code request}'s class: its method, path and query */
    static ClassKey probe(org.apache.coyote.Request request) {
        ClassKey k = PROBES.get();
        k.length = 0;
        k.hash = 0;
        k.append(request.method());
        k.append((byte) ' ');
        k.append(request.requestURI());
        k.endPath();
        MessageBytes query = request.queryString();
        if (!query.isNull() && query.getLength() > 0) {
            k.append((byte) '?');
            k.append(query);
        }
        return k;
    }

    /**
     * Reads a class from a request line still in the socket's read buffer, before Tomcat parses it: the method, a
     * space, the origin-form target's path and query, as {@link #probe(org.apache.coyote.Request)} names them (the
     * path as received, undecoded). The buffer is read from its position to its limit and left as it was.
     *
     * @return the calling thread's probe, or {@code null} if the bytes hold no complete method and origin-form target
     *         (a request line cut short, an asterisk or absolute-form target, an HTTP/2 preface, anything else)
     */
    static ClassKey probe(ByteBuffer line) {
        int i = line.position();
        int end = line.limit();
        while (i < end && (line.get(i) == '\r' || line.get(i) == '\n')) {
            i++; // blank lines before a request line are allowed (RFC 9112, 2.2)
        }
        int methodStart = i;
        while (i < end && line.get(i) != ' ') {
            byte b = line.get(i);
            if (b <= ' ' || b >= 127 || i - methodStart > MAX_METHOD_LENGTH) {
                return null;
            }
            i++;
        }
        if (i == methodStart || i + 1 >= end || line.get(i + 1) != '/') {
            return null;
        }
        int methodEnd = i;
        int pathStart = i + 1;
        int pathEnd = -1;
        for (i = pathStart; i < end; i++) {
            byte b = line.get(i);
            if (b == ' ' || b == '\r' || b == '\n') {
                break;
            }
            if (b == '?' && pathEnd < 0) {
                pathEnd = i;
            }
        }
        if (i == end) {
            return null; // the target may go on in bytes not read yet
        }
        int targetEnd = i;
        if (pathEnd < 0) {
            pathEnd = targetEnd;
        }
        ClassKey k = PROBES.get();
        k.length = 0;
        k.hash = 0;
        k.append(line, methodStart, methodEnd);
        k.append((byte) ' ');
        k.append(line, pathStart, pathEnd);
        k.endPath();
        if (targetEnd - pathEnd > 1) {
            k.append(line, pathEnd, targetEnd); // '?' and the query
        }
        return k;
    }

    /** Longer than any method a server knows; a longer first token is not a request line this probe reads. */
    private static final int MAX_METHOD_LENGTH = 32;

    /** @return a probe (not the thread's own) holding {@code path} ({@code "GET /size"}) and {@code query} */
    static ClassKey of(String path, String query) {
        ClassKey k = new ClassKey(new byte[16]);
        k.append(path);
        k.endPath();
        if (query != null && !query.isEmpty()) {
            k.append((byte) '?');
            k.append(query);
        }
        return k;
    }

    /** @return whether the key names a query's class; otherwise it names its path's */
    boolean hasQuery() {
        return length > pathLength;
    }

    /** Makes this probe name its path's class (the parent of its query's); {@link #hasQuery} is then false. */
    void toPath() {
        length = pathLength;
        hash = pathHash;
    }

    /** @return a key that keeps this one's name, to store */
    ClassKey copy() {
        ClassKey k = new ClassKey(Arrays.copyOf(bytes, length));
        k.length = length;
        k.hash = hash;
        k.pathLength = pathLength;
        k.pathHash = pathHash;
        return k;
    }

    private void endPath() {
        pathLength = length;
        pathHash = hash;
    }

    private void append(MessageBytes mb) {
        if (mb.getType() == MessageBytes.T_BYTES) {
            ByteChunk chunk = mb.getByteChunk();
            byte[] src = chunk.getBuffer();
            int end = chunk.getEnd();
            for (int i = chunk.getStart(); i < end; i++) {
                append(src[i]);
            }
        } else if (!mb.isNull()) {
            append(mb.toString()); // a method or path set as a string (a valve rewrote it): rare
        }
    }

    private void append(ByteBuffer b, int from, int to) {
        for (int i = from; i < to; i++) {
            append(b.get(i));
        }
    }

    /** Characters above U+00FF keep their low byte: two such names may share a class, which only mispredicts. */
    private void append(String s) {
        for (int i = 0; i < s.length(); i++) {
            append((byte) s.charAt(i));
        }
    }

    private void append(byte b) {
        if (length == bytes.length) {
            bytes = Arrays.copyOf(bytes, length * 2);
        }
        bytes[length++] = b;
        hash = 31 * hash + (b & 0xFF);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClassKey)) {
            return false;
        }
        ClassKey k = (ClassKey) o;
        return k.hash == hash && Arrays.equals(bytes, 0, length, k.bytes, 0, k.length);
    }

    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
    }
}
