package io.hybridconnector.samples;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /nbecho}: Servlet non-blocking I/O; a ReadListener collects the body, a WriteListener sends it back. */
@WebServlet(urlPatterns = "/nbecho", asyncSupported = true)
public class NonBlockingEchoServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        AsyncContext ac = req.startAsync();
        ServletInputStream in = req.getInputStream();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        in.setReadListener(new ReadListener() {
            private final byte[] buffer = new byte[8192];

            @Override
            public void onDataAvailable() throws IOException {
                while (in.isReady() && !in.isFinished()) {
                    int n = in.read(buffer);
                    if (n > 0) {
                        body.write(buffer, 0, n);
                    }
                }
            }

            @Override
            public void onAllDataRead() throws IOException {
                byte[] data = body.toByteArray();
                resp.setContentType("application/octet-stream");
                resp.setContentLength(data.length);
                ServletOutputStream out = resp.getOutputStream();
                out.setWriteListener(new WriteListener() {
                    private int offset;

                    @Override
                    public void onWritePossible() throws IOException {
                        while (out.isReady()) {
                            if (offset == data.length) {
                                ac.complete();
                                return;
                            }
                            int n = Math.min(8192, data.length - offset);
                            out.write(data, offset, n);
                            offset += n;
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        ac.complete();
                    }
                });
            }

            @Override
            public void onError(Throwable t) {
                ac.complete();
            }
        });
    }
}
