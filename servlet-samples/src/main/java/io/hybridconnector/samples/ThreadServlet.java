package io.hybridconnector.samples;

import java.io.IOException;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /thread}: the thread that runs the servlet and the frames beneath it, one {@code class.method} a line.
 * Tests use it to see whether the servlet runs inside the connector's selector loop.
 */
@WebServlet("/thread")
public class ThreadServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        StringBuilder sb = new StringBuilder("thread=").append(Thread.currentThread().getName()).append("\nstack=\n");
        for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
            sb.append(frame.getClassName()).append('.').append(frame.getMethodName()).append('\n');
        }
        Responses.text(resp, sb.toString());
    }
}
