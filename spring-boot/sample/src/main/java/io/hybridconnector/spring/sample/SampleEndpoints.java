package io.hybridconnector.spring.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * One endpoint per kind of Spring MVC response a connector must carry: a small body, an echoed request body, a large
 * body, a {@link Callable} (Servlet async), a {@link StreamingResponseBody} (async, flushed chunks), server-sent events,
 * and a request that sleeps (a blocking call: a JDBC query's stand-in) for hand-offs, busy threads and graceful
 * shutdown. Request threads of any connector; the SSE events are sent from a thread of their own.
 */
@RestController
public class SampleEndpoints {

    /** Requests inside {@code /sleep} now: lets a test wait until its requests are really in flight. */
    private final AtomicInteger sleeping = new AtomicInteger();

    @GetMapping("/hi")
    public String hi() {
        return "hi";
    }

    @PostMapping("/echo")
    public byte[] echo(@RequestBody byte[] body) {
        return body;
    }

    /** {@code kb} KB of text, made per request as a typical JSON or HTML page would be. */
    @GetMapping(value = "/big", produces = MediaType.TEXT_PLAIN_VALUE)
    public String big(@RequestParam(defaultValue = "100") int kb) {
        return "x".repeat(kb * 1024);
    }

    @GetMapping("/callable")
    public Callable<String> callable() {
        return () -> "callable on " + Thread.currentThread().getName();
    }

    /** Ten 1 KB chunks, each flushed: the response leaves as a chunked stream from Spring's async thread. */
    @GetMapping(value = "/stream", produces = MediaType.TEXT_PLAIN_VALUE)
    public StreamingResponseBody stream() {
        return out -> {
            for (int i = 0; i < 10; i++) {
                out.write(("chunk" + i + "\n").repeat(1024 / 7).getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        };
    }

    @GetMapping("/sse")
    public SseEmitter sse() {
        SseEmitter emitter = new SseEmitter(10_000L);
        Thread sender = new Thread(() -> {
            try {
                for (int i = 0; i < 3; i++) {
                    emitter.send(SseEmitter.event().name("tick").data("e" + i));
                    Thread.sleep(20);
                }
                emitter.complete();
            } catch (IOException | InterruptedException e) {
                emitter.completeWithError(e);
            }
        }, "sse-sender");
        sender.setDaemon(true);
        sender.start();
        return emitter;
    }

    @GetMapping("/sleep")
    public String sleep(@RequestParam(defaultValue = "100") long ms) throws InterruptedException {
        sleeping.incrementAndGet();
        try {
            Thread.sleep(ms);
        } finally {
            sleeping.decrementAndGet();
        }
        return "slept " + ms;
    }

    /** Whether the request runs on a virtual thread (Java 21+), and its name: where Boot's executor ran it. */
    @GetMapping("/thread")
    public String thread() {
        Thread t = Thread.currentThread();
        boolean virtual;
        try {
            virtual = (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            virtual = false;
        }
        return (virtual ? "virtual " : "platform ") + t.getName();
    }

    public int sleepingNow() {
        return sleeping.get();
    }
}
