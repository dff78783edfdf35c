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

    static byte[] generate(int bytes) {
        byte[] body = new byte[bytes];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < bytes; i++) {
            body[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return body;
    }
}
