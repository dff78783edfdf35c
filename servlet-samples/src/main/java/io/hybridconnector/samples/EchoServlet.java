package io.hybridconnector.samples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /echo}: streams the request body back (chunked in and out when no length is known). {@code ?flush=true}
 * flushes after each 8 KB so the response is chunked even for small bodies.
 */
@WebServlet("/echo")
public class EchoServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String type = req.getContentType();
        resp.setContentType(type == null ? "application/octet-stream" : type);
        if (req.getContentLengthLong() >= 0 && !"true".equals(req.getParameter("flush"))) {
            resp.setContentLengthLong(req.getContentLengthLong());
        }
        boolean flush = "true".equals(req.getParameter("flush"));
        byte[] buffer = new byte[8192];
        try (InputStream in = req.getInputStream(); OutputStream out = resp.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                out.write(buffer, 0, n);
                if (flush) {
                    out.flush();
                }
            }
        }
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        doPost(req, resp);
    }
}
