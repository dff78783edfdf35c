package io.hybridconnector.samples;

import java.io.IOException;
import java.io.OutputStream;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /fail?kb=N}: writes N KB of the body it announced (flushed, so the response is committed), then throws. With
 * N = 0 (the default) it throws before anything is written, so the container answers with its own 500. Exists for the
 * reliability suite's fault scenario: a servlet that throws must cost the connector nothing that outlives the request.
 * Runs on the container's request thread.
 */
@WebServlet("/fail")
public class FailServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long kb;
        try {
            kb = Responses.parseLong(req.getParameter("kb") == null ? "0" : req.getParameter("kb"), "kb", 0, 10_240);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        if (kb > 0) {
            resp.setContentType("application/octet-stream");
            resp.setContentLengthLong(2 * kb * 1024); // promises twice what it will write
            OutputStream out = resp.getOutputStream();
            out.write(new byte[(int) kb * 1024]);
            out.flush();
        }
        throw new IllegalStateException("thrown on purpose by /fail (reliability suite)");
    }
}
