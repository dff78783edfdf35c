package io.hybridconnector.samples;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /block?ms=N}: a servlet that blocks, like one waiting for a database or a remote call. N may have up to three
 * decimals: whole milliseconds sleep ({@code Thread.sleep}), a fraction parks until its deadline, since
 * {@code Thread.sleep(0, 500_000)} sleeps a whole millisecond on JDK 17.
 */
@WebServlet("/block")
public class BlockServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long nanos;
        try {
            nanos = Responses.parseMillisAsNanos(req.getParameter("ms"), "ms", 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        try {
            block(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            resp.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "interrupted");
            return;
        }
        Responses.text(resp, "slept " + req.getParameter("ms"));
    }

    private static void block(long nanos) throws InterruptedException {
        if (nanos % 1_000_000 == 0) {
            Thread.sleep(nanos / 1_000_000);
            return;
        }
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }
}
