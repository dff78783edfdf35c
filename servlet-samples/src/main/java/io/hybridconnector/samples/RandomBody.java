package io.hybridconnector.samples;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The papers' response body: a random alphanumeric string made per request, so that the work grows with the size.
 */
final class RandomBody {

    static final int MAX_BYTES = 100 * 1024 * 1024;

    private static final byte[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);

    private RandomBody() {
    }

    /**
     * @param kb a size in KB such as {@code 0.1}, {@code 10} or {@code 100}
     * @return the size in bytes, {@code round(kb * 1024)}
     * @throws IllegalArgumentException with a message fit for a 400 page
     */
    static int parseKb(String kb) {
        if (kb == null) {
            throw new IllegalArgumentException("missing parameter kb (e.g. kb=0.1, kb=10, kb=100)");
        }
        double value;
        try {
            value = Double.parseDouble(kb);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kb must be a number of kilobytes, got '" + kb + "'");
        }
        long bytes = Math.round(value * 1024);
        if (!(value > 0) || bytes > MAX_BYTES) {
            throw new IllegalArgumentException("kb must be above 0 and at most " + MAX_BYTES / 1024);
        }
        return (int) bytes;
    }

    /**
     * Uniform over the 62 letters and digits, as {@code nextInt(62)} per byte would be, at about a fifth of its cost:
     * each random {@code long} gives ten 6-bit draws, and the 2 of 64 values past the alphabet are drawn again. The
     * body is the application's work in the benchmarks; at 3 ns per byte it was 32 us of a 10 KB request, more than
     * the connector's own cost, and the same for every connector.
     */
    static byte[] generate(int bytes) {
        byte[] body = new byte[bytes];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int i = 0;
        while (i < bytes) {
            long bits = random.nextLong();
            for (int draws = 0; draws < 10 && i < bytes; draws++, bits >>>= 6) {
                int index = (int) (bits & 63);
                if (index < ALPHABET.length) {
                    body[i++] = ALPHABET[index];
                }
            }
        }
        return body;
    }
}
