package io.hybridconnector.samples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

/** Small helpers shared by the samples: a plain-text body with its length, and a clean 400. */
final class Responses {

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
}
