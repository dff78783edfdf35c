package io.hybridconnector.samples;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.annotation.WebListener;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /async?ms=N}: Servlet async; the response is written and completed by another thread after N ms.
 * Times out with 503 after {@code timeoutMs} (default 30 s).
 */
@WebServlet(urlPatterns = "/async", asyncSupported = true)
public class AsyncServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** Shared timer for all requests; shut down with the context. */
    static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "samples-async-timer");
        t.setDaemon(true);
        return t;
    });

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long ms;
        long timeoutMs;
        try {
            ms = Responses.parseLong(req.getParameter("ms"), "ms", 0, 600_000);
            String t = req.getParameter("timeoutMs");
            timeoutMs = t == null ? 30_000 : Responses.parseLong(t, "timeoutMs", 1, 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        AsyncContext ac = req.startAsync();
        ac.setTimeout(timeoutMs);
        ac.addListener(new TimeoutTo503());
        TIMER.schedule(() -> {
            try {
                Responses.text(ac.getResponse(), "async " + ms);
            } catch (IOException | IllegalStateException e) {
                // The request timed out or the client left.
            } finally {
                try {
                    ac.complete();
                } catch (IllegalStateException alreadyDone) {
                    // Completed by the timeout.
                }
            }
        }, ms, TimeUnit.MILLISECONDS);
    }

    private static final class TimeoutTo503 implements AsyncListener {
        @Override
        public void onTimeout(AsyncEvent event) throws IOException {
            HttpServletResponse resp = (HttpServletResponse) event.getAsyncContext().getResponse();
            resp.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            Responses.text(resp, "async timeout");
            event.getAsyncContext().complete();
        }

        @Override
        public void onComplete(AsyncEvent event) {
        }

        @Override
        public void onError(AsyncEvent event) {
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
        }
    }

    /** Stops the timer when the web application stops. */
    @WebListener
    public static final class Shutdown implements ServletContextListener {
        @Override
        public void contextDestroyed(ServletContextEvent sce) {
            TIMER.shutdownNow();
        }
    }
}
