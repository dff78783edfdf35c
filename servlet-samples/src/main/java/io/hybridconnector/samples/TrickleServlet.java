package io.hybridconnector.samples;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /trickle?kb=8&ms=100&n=10}: a page that trickles out and never calls {@code flush()}, as a long report, a CSV
 * export or a progress page does: {@code n} times, wait {@code ms}, then write a line {@code "piece <i>\n"} and
 * {@code kb} KB of one letter ({@code ALPHABET[i % 62]}). No Content-Length: the body is chunked. How soon the first
 * piece reaches the client shows when a connector sends bytes the application did not flush.
 */
@WebServlet("/trickle")
public class TrickleServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    static final byte[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        int bytes;
        long ms;
        long n;
        try {
            bytes = RandomBody.parseKb(param(req, "kb", "8"));
            ms = Responses.parseLong(param(req, "ms", "100"), "ms", 0, 10_000);
            n = Responses.parseLong(param(req, "n", "10"), "n", 1, 10_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        resp.setContentType("text/plain;charset=US-ASCII");
        OutputStream out = resp.getOutputStream();
        byte[] piece = new byte[bytes];
        for (int i = 0; i < n; i++) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            out.write(("piece " + i + "\n").getBytes(StandardCharsets.US_ASCII));
            Arrays.fill(piece, ALPHABET[i % ALPHABET.length]);
            out.write(piece);
        }
    }

    private static String param(HttpServletRequest req, String name, String otherwise) {
        String value = req.getParameter(name);
        return value == null ? otherwise : value;
    }
}
