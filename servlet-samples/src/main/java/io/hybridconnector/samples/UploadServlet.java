package io.hybridconnector.samples;

import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /upload}: reads the whole body and answers {@code bytes=N crc32=xxxxxxxx}. */
@WebServlet("/upload")
public class UploadServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        CRC32 crc = new CRC32();
        long total = 0;
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = req.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                crc.update(buffer, 0, n);
                total += n;
            }
        }
        Responses.text(resp, String.format("bytes=%d crc32=%08x", total, crc.getValue()));
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        doPost(req, resp);
    }
}
