package io.hybridconnector.loop;

import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The calling thread's nice value, set through the C library's {@code setpriority(2)} with JNA's direct mapping (one
 * JNI call, no allocation). Why native: HotSpot's {@code Thread.setPriority} changes nothing on Linux unless the JVM
 * was started with {@code -XX:ThreadPriorityPolicy=1}, an option a drop-in connector cannot ask every operator for.
 * Linux keeps a nice value per thread, and {@code PRIO_PROCESS} with {@code who} 0 names the calling thread.
 * <p>
 * Loaded only where {@link ComputePriority} finds Linux; a failure to load (no JNA, a temporary directory mounted
 * {@code noexec}) leaves the priority inactive and says why at start.
 */
final class NativeNice {

    private static final int PRIO_PROCESS = 0;
    private static final int CALLING_THREAD = 0;

    private static final String JNA_TMPDIR = "jna.tmpdir";

    static {
        // JNA unpacks its dispatch library and deletes it once loaded; by default it does so under the user's home
        // (~/.cache/JNA). Here: the JVM's temporary directory (Tomcat's CATALINA_TMPDIR), unless the operator chose.
        boolean chosen = System.getProperty(JNA_TMPDIR) != null;
        if (!chosen) {
            System.setProperty(JNA_TMPDIR, System.getProperty("java.io.tmpdir"));
        }
        try {
            Native.register(NativeNice.class, Platform.C_LIBRARY_NAME);
        } finally {
            if (!chosen) {
                System.clearProperty(JNA_TMPDIR);
            }
        }
    }

    private NativeNice() {
    }

    private static native int setpriority(int which, int who, int prio);

    /**
     * @param nice from -20 to 19
     * @return whether the kernel took it (an unprivileged process may raise its nice value but not lower it)
     */
    static boolean setCurrent(int nice) {
        return setpriority(PRIO_PROCESS, CALLING_THREAD, nice) == 0;
    }
}
