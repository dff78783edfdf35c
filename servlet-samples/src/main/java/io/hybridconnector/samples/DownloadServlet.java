package io.hybridconnector.samples;

import java.io.IOException;
import java.io.OutputStream;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /download?bytes=N&seed=S}: N deterministic pseudo-random bytes in 64 KB writes, with their CRC-32 in
 * {@code X-CRC32} so that a client can check every byte of a large download.
 */
@WebServlet("/download")
public class DownloadServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final int CHUNK = 64 * 1024;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long bytes;
        long seed;
        try {
            bytes = Responses.parseLong(req.getParameter("bytes"), "bytes", 0, 1L << 30);
            String s = req.getParameter("seed");
            seed = s == null ? 1 : Responses.parseLong(s, "seed", Long.MIN_VALUE, Long.MAX_VALUE);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        byte[] chunk = new byte[CHUNK];
        CRC32 crc = new CRC32();
        generate(bytes, seed, chunk, (b, n) -> crc.update(b, 0, n));
        resp.setContentType("application/octet-stream");
        resp.setContentLengthLong(bytes);
        resp.setHeader("X-CRC32", String.format("%08x", crc.getValue()));
        OutputStream out = resp.getOutputStream();
        generate(bytes, seed, chunk, (b, n) -> out.write(b, 0, n));
    }

    private interface ChunkSink {
        void accept(byte[] chunk, int length) throws IOException;
    }

    private static void generate(long bytes, long seed, byte[] chunk, ChunkSink sink) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        long left = bytes;
        while (left > 0) {
            int n = (int) Math.min(chunk.length, left);
            for (int i = 0; i < n; i++) {
                chunk[i] = (byte) random.nextInt(256);
            }
            sink.accept(chunk, n);
            left -= n;
        }
    }
}
