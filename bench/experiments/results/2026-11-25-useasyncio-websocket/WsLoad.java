import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Closed-loop WebSocket echo load with the JDK's client: {@code connections} sessions, each sending a text message of
 * {@code bytes} and the next one as soon as the echo is back, for {@code seconds}. Prints "messages N seconds S" and,
 * given the server's pid, "cpu_ticks T": utime + stime of /proc/PID/stat over the same window.
 * Args: url connections bytes seconds [pid].
 */
public class WsLoad {

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        int connections = Integer.parseInt(args[1]);
        String message = "x".repeat(Integer.parseInt(args[2]));
        long seconds = Long.parseLong(args[3]);
        HttpClient client = HttpClient.newHttpClient();
        LongAdder echoes = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        List<WebSocket> sockets = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            sockets.add(client.newWebSocketBuilder().buildAsync(uri, new WebSocket.Listener() {
                private final StringBuilder partial = new StringBuilder();

                @Override
                public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                    partial.append(data);
                    ws.request(1);
                    if (last) {
                        partial.setLength(0);
                        echoes.increment();
                        if (running.get()) {
                            ws.sendText(message, true);
                        }
                    }
                    return null;
                }
            }).get(10, TimeUnit.SECONDS));
        }
        String stat = args.length > 4 ? "/proc/" + args[4] + "/stat" : null;
        long ticks0 = stat == null ? 0 : cpuTicks(stat);
        long start = System.nanoTime();
        for (WebSocket ws : sockets) {
            ws.sendText(message, true);
        }
        Thread.sleep(seconds * 1000);
        long n = echoes.sum();
        double elapsed = (System.nanoTime() - start) / 1e9;
        long ticks = stat == null ? 0 : cpuTicks(stat) - ticks0;
        running.set(false);
        Thread.sleep(200);
        List<CompletableFuture<WebSocket>> closes = new ArrayList<>();
        for (WebSocket ws : sockets) {
            closes.add(ws.sendClose(WebSocket.NORMAL_CLOSURE, "done"));
        }
        for (CompletableFuture<WebSocket> c : closes) {
            try {
                c.get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // the server may close first
            }
        }
        System.out.printf("messages %d seconds %.3f cpu_ticks %d%n", n, elapsed, ticks);
        System.exit(0);
    }

    /** utime + stime (fields 14 and 15) of a /proc/PID/stat file; the command name may hold spaces, so count after ')'. */
    private static long cpuTicks(String statFile) throws Exception {
        String s = java.nio.file.Files.readString(java.nio.file.Path.of(statFile));
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
