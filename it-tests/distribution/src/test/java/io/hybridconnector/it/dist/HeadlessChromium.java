package io.hybridconnector.it.dist;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's Chromium, headless, driven over the Chrome DevTools Protocol with the JDK's own HTTP and WebSocket
 * clients: a real browser that loads a page, runs its scripts and types into it like a user, without a WebDriver
 * dependency. Test-only; one browser per instance, its profile in a temporary directory.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on ws://127\\.0\\.0\\.1:(\\d+)/");
    private static final Pattern DEBUGGER_URL = Pattern.compile("\"webSocketDebuggerUrl\"\\s*:\\s*\"([^\"]+)\"");
    private static final long TIMEOUT_SECONDS = 20;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Process process;
    /** Chromium's TMPDIR, deleted at close. */
    private final Path scratch;
    private final int port;

    /** @return why no browser test can run here, or {@code null} */
    static String whyUnavailable() {
        return Files.isExecutable(BINARY) ? null
                : BINARY + " not found: install Debian's browser with `apt-get install -y chromium`";
    }

    HeadlessChromium(Path workDir) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path profile = Files.createTempDirectory(workDir, "chromium-profile-");
        ProcessBuilder command = new ProcessBuilder(BINARY.toString(), "--headless=new", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--disable-extensions", "--remote-debugging-port=0",
                "--user-data-dir=" + profile, "about:blank").redirectErrorStream(true);
        // Chromium's own scratch directories (org.chromium.Chromium.*) go to one of this browser's, deleted at close,
        // not to /tmp itself. A short path: Chromium binds a Unix socket in there, and a path under target/ would pass
        // the 108-byte limit of a socket's address (Chromium then exits before it listens).
        scratch = Files.createTempDirectory("chromium-");
        command.environment().put("TMPDIR", scratch.toString());
        process = command.start();
        CompletableFuture<Integer> devToolsPort = new CompletableFuture<>();
        Thread drain = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        devToolsPort.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                devToolsPort.completeExceptionally(e);
            }
            devToolsPort.completeExceptionally(new IOException("chromium exited before it listened"));
        }, "chromium-output");
        drain.setDaemon(true);
        drain.start();
        try {
            port = devToolsPort.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            deleteScratch();
            throw new IOException("chromium did not start its DevTools endpoint", e);
        }
    }

    /** Opens a new tab on {@code url} and connects to it. */
    Page open(String url) throws Exception {
        HttpResponse<String> target = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/json/new?" + URLEncoder.encode(url, StandardCharsets.UTF_8)))
                .PUT(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = DEBUGGER_URL.matcher(target.body());
        if (!m.find()) {
            throw new IOException("no debugger URL for the new tab: " + target.body());
        }
        Page page = new Page();
        page.socket = http.newWebSocketBuilder().buildAsync(URI.create(m.group(1)), page)
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return page;
    }

    @Override
    public void close() throws InterruptedException, IOException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        deleteScratch();
    }

    /** Chromium's helper processes may still be leaving files there for a moment after the browser exits. */
    private void deleteScratch() throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                TomcatDistribution.deleteRecursively(scratch);
                return;
            } catch (IOException e) {
                if (attempt == 10) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** One tab: commands go out as JSON over its DevTools WebSocket, answers come back by id. */
    static final class Page implements WebSocket.Listener {

        private final AtomicInteger ids = new AtomicInteger();
        private final Map<Integer, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
        private final StringBuilder partial = new StringBuilder();
        private WebSocket socket;

        /** Sends a DevTools command and waits for its answer (the raw JSON). */
        String call(String method, String paramsJson) throws Exception {
            int id = ids.incrementAndGet();
            CompletableFuture<String> answer = new CompletableFuture<>();
            pending.put(id, answer);
            socket.sendText("{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + paramsJson + "}", true)
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            String json = answer.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (json.contains("\"exceptionDetails\"") || json.contains("\"error\"")) {
                throw new IOException(method + " failed: " + json);
            }
            return json;
        }

        /** Evaluates a JavaScript expression in the page; returns the JSON of its value. */
        String evaluate(String expression) throws Exception {
            return call("Runtime.evaluate", "{\"expression\":" + jsonString(expression) + ",\"returnByValue\":true}");
        }

        /**
         * Polls a boolean expression until it holds. Until the page has loaded, the elements it names may not exist
         * yet: an expression that throws counts as false.
         */
        void waitUntil(String expression) throws Exception {
            String guarded = "(() => { try { return !!(" + expression + "); } catch (e) { return false; } })()";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (!evaluate(guarded).contains("\"value\":true")) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("still false after " + TIMEOUT_SECONDS + " s: " + expression
                            + "\npage text: " + evaluate("document.body ? document.body.innerText : '(no body)'"));
                }
                Thread.sleep(100);
            }
        }

        /** Types into the element with this id and presses Enter, as a user's keyboard does. */
        void typeAndPressEnter(String elementId, String text) throws Exception {
            evaluate("document.getElementById(" + jsonString(elementId) + ").focus()");
            call("Input.insertText", "{\"text\":" + jsonString(text) + "}");
            for (String type : new String[] {"keyDown", "keyUp"}) {
                call("Input.dispatchKeyEvent", "{\"type\":\"" + type + "\",\"key\":\"Enter\",\"code\":\"Enter\","
                        + "\"windowsVirtualKeyCode\":13,\"nativeVirtualKeyCode\":13}");
            }
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String json = partial.toString();
                partial.setLength(0);
                Matcher m = Pattern.compile("^\\{\"id\":(\\d+),").matcher(json);
                if (m.find()) {
                    CompletableFuture<String> answer = pending.remove(Integer.parseInt(m.group(1)));
                    if (answer != null) {
                        answer.complete(json);
                    }
                }
            }
            ws.request(1);
            return null;
        }

        private static String jsonString(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    default -> b.append(c);
                }
            }
            return b.append('"').toString();
        }
    }
}
