package io.hybridconnector.loop;

import java.security.AccessController;
import java.security.PrivilegedAction;
import java.util.function.Supplier;

/**
 * Creates every thread the connector starts, so that none keeps a web application alive. A thread made while a
 * request runs (a loop handed off from inside a servlet, an {@code AsyncContext.start} task) would otherwise take
 * from its creator the application's context class loader, an access-control context holding the protection domains
 * of the servlet's frames (each names its class loader), and copies of its inheritable thread locals. Tomcat then logs
 * "appears to have started a thread" at undeploy and the application's class loader is never collected. Tomcat's
 * {@code TaskThreadFactory} resets the first two for the same reason.
 * <p>
 * Here: the thread is constructed inside {@code doPrivileged} (its inherited context then holds only this class's
 * frames and the constructor's), with the creating thread's context class loader set to the connector's for the
 * duration of the construction, and the new thread's own set to the connector's class loader. Any thread may call.
 */
public final class ConnectorThreads {

    /** The context class loader of every connector thread: the one that loaded the connector (Tomcat's common). */
    public static final ClassLoader LOADER = ConnectorThreads.class.getClassLoader();

    private ConnectorThreads() {
    }

    /**
     * Runs {@code constructor} as described above; it should create the thread without inheriting thread locals
     * where it can ({@code Thread(group, task, name, 0, false)}).
     *
     * @return the thread, not started, with {@link #LOADER} as its context class loader
     */
    public static <T extends Thread> T create(Supplier<T> constructor) {
        T t = asConnector(constructor);
        t.setContextClassLoader(LOADER);
        return t;
    }

    /**
     * Runs {@code action} inside {@code doPrivileged} with the calling thread's context class loader set to
     * {@link #LOADER} meanwhile: threads it creates inherit only that. For threads made by code that is not ours
     * (Tomcat's acceptor).
     */
    @SuppressWarnings("removal") // AccessController: still how a Java 17 thread's inherited context is chosen
    public static <T> T asConnector(Supplier<T> action) {
        return AccessController.doPrivileged((PrivilegedAction<T>) () -> {
            Thread creator = Thread.currentThread();
            ClassLoader previous = creator.getContextClassLoader();
            creator.setContextClassLoader(LOADER);
            try {
                return action.get();
            } finally {
                creator.setContextClassLoader(previous);
            }
        });
    }

    /** A connector thread for {@code task}, without the creator's inheritable thread locals. */
    public static Thread newThread(Runnable task, String name, boolean daemon) {
        Thread t = create(() -> new Thread(null, task, name, 0, false));
        t.setDaemon(daemon);
        return t;
    }
}
