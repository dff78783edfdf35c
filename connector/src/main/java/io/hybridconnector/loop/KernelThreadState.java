package io.hybridconnector.loop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * What the kernel says a thread is doing, where Linux tells ({@code /proc/self/task/<tid>/stat}): sleeping in a
 * system call (a JDBC socket read, a blocking file read) or running / waiting for a CPU. Java reports both as
 * {@code RUNNABLE}, and a thread's CPU time cannot tell them apart on a busy machine, where a computing thread may
 * get less CPU than wall time because others run.
 */
final class KernelThreadState {

    private static final Path THREAD_SELF = Paths.get("/proc/thread-self");

    private KernelThreadState() {
    }

    /** @return the calling thread's kernel id, or -1 where {@code /proc/thread-self} does not exist */
    static int currentTid() {
        try {
            // "<pid>/task/<tid>"
            String link = Files.readSymbolicLink(THREAD_SELF).toString();
            return Integer.parseInt(link.substring(link.lastIndexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** @return the calling thread's nice value (-20 to 19), or 0 where {@code /proc/thread-self} does not exist */
    static int currentNice() {
        try {
            // The nice value is the 17th field after the name (19th of the line).
            return Integer.parseInt(afterName(Files.readString(THREAD_SELF.resolve("stat"))).split(" ", 18)[16]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * @return {@code 1} if the thread sleeps in the kernel (state S or D), {@code 0} if it runs or waits for a CPU,
     *         {@code -1} if unknown
     */
    static int sleepingInKernel(int tid) {
        if (tid < 0) {
            return -1;
        }
        try {
            char state = afterName(Files.readString(Paths.get("/proc/self/task/" + tid + "/stat"))).charAt(0);
            return state == 'S' || state == 'D' ? 1 : 0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The fields of "tid (comm) S ...", from the state on: after the last ')', as comm may hold spaces and ')'. */
    private static String afterName(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2);
    }
}
