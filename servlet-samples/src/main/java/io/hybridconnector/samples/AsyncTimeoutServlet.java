package io.hybridconnector.samples;

import java.io.IOException;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /async-timeout?timeoutMs=N}: starts Servlet async with a timeout of N ms and never completes it, so the
 * container's own timeout handling answers (Tomcat: an error dispatch, 500). With {@code &dispatch=/path} a listener
 * dispatches to that path of this application on timeout instead. Runs on the container's threads only.
 */
@WebServlet(urlPatterns = "/async-timeout", asyncSupported = true)
public class AsyncTimeoutServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long timeoutMs;
        String dispatch = req.getParameter("dispatch");
        try {
            timeoutMs = Responses.parseLong(req.getParameter("timeoutMs"), "timeoutMs", 1, 600_000);
            if (dispatch != null && !dispatch.startsWith("/")) {
                throw new IllegalArgumentException("dispatch must be a path that starts with /");
            }
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        AsyncContext ac = req.startAsync();
        ac.setTimeout(timeoutMs);
        if (dispatch != null) {
            ac.addListener(new DispatchOnTimeout(dispatch));
        }
    }

    /** Dispatches the timed-out request to a fixed path; runs on the container thread that reports the timeout. */
    private static final class DispatchOnTimeout implements AsyncListener {
        private final String path;

        DispatchOnTimeout(String path) {
            this.path = path;
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            event.getAsyncContext().dispatch(path);
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
}
