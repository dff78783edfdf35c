package io.hybridconnector.samples;

import java.io.IOException;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /size?kb=0.1|10|100}: the papers' workload, a random string of that size written in one call. */
@WebServlet("/size")
public class SizeServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        int bytes;
        try {
            bytes = RandomBody.parseKb(req.getParameter("kb"));
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        Responses.bytes(resp, body(bytes));
    }

    /** The body of one response: here a fresh one per request, as the papers' servlet makes it. */
    protected byte[] body(int bytes) {
        return RandomBody.generate(bytes);
    }
}
