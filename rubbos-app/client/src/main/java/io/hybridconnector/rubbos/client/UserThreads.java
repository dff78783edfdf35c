package io.hybridconnector.rubbos.client;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where emulated users run: a virtual thread each on Java 21+, a platform thread each (small stack) on Java 17,
 * which this code is compiled for. Virtual threads are looked up reflectively so one jar serves both.
 */
final class UserThreads {

    private UserThreads() {
    }

    static ThreadFactory factory() {
        if (Runtime.version().feature() >= 21) {
            try {
                Class<?> builderType = Class.forName("java.lang.Thread$Builder");
                Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
                builder = builderType.getMethod("name", String.class, long.class).invoke(builder, "user-", 0L);
                return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
            } catch (ReflectiveOperationException e) {
                // fall through to platform threads
            }
        }
        AtomicInteger next = new AtomicInteger();
        return task -> {
            Thread t = new Thread(null, task, "user-" + next.getAndIncrement(), 256 * 1024);
            t.setDaemon(true);
            return t;
        };
    }

    /** @return "virtual threads" or "platform threads", for the log line that states the setup */
    static String kind() {
        return describe(factory().newThread(() -> { }));
    }

    private static String describe(Thread t) {
        return t.toString().startsWith("VirtualThread") ? "virtual threads" : "platform threads";
    }
}
