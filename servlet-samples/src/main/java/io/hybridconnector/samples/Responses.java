package io.hybridconnector.samples;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

/** Small helpers shared by the samples: a plain-text body with its length, a clean 400, parameter parsing. */
final class Responses {

    /** Milliseconds: digits, then at most three decimals. */
    private static final Pattern MILLIS = Pattern.compile("\\d{1,9}(\\.\\d{1,3})?");

    private Responses() {
    }

    static void text(ServletResponse response, String text) throws IOException {
        bytes(response, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the body in one call with Content-Length set, as the papers' servlets do. */
    static void bytes(ServletResponse response, byte[] body) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    static void badRequest(HttpServletResponse response, String message) throws IOException {
        response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
        text(response, message + "\n");
    }

    static long parseLong(String value, String name, long min, long max) {
        try {
            long v = Long.parseLong(value);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " must be a whole number from " + min + " to " + max);
    }

    /**
     * A duration in milliseconds with up to three decimals ({@code 20}, {@code 0.5}, {@code 2.25}), as nanoseconds;
     * from 0 to {@code maxMillis}.
     */
    static long parseMillisAsNanos(String value, String name, long maxMillis) {
        if (value != null && MILLIS.matcher(value).matches()) {
            BigDecimal ms = new BigDecimal(value);
            if (ms.compareTo(BigDecimal.valueOf(maxMillis)) <= 0) {
                return ms.movePointRight(6).longValueExact();
            }
        }
        throw new IllegalArgumentException(name + " must be a number of milliseconds from 0 to " + maxMillis
                + ", at most three decimals");
    }
}
