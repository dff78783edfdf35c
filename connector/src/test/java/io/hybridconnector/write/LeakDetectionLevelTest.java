package io.hybridconnector.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.util.ResourceLeakDetector;

/**
 * The write-behind pool turns the shaded Netty's leak detection off, unless a level was asked for: the reliability
 * suite (issue 16) runs Tomcat with {@code -Dio.netty.leakDetection.level=paranoid} and fails on any leak report, which
 * it could never see while the pool overrode that level. The level is global and set once per process, so each check
 * runs a child JVM on the test's class path.
 */
class LeakDetectionLevelTest {

    @Test
    void offByDefault() throws Exception {
        assertEquals("DISABLED", levelInChild());
    }

    @Test
    void anAskedLevelHolds() throws Exception {
        assertEquals("PARANOID", levelInChild("-Dio.netty.leakDetection.level=paranoid"));
    }

    private static String levelInChild(String... jvmOptions) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Child.class.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = readAll(child.getInputStream());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not end");
        assertEquals(0, child.exitValue(), "the child failed:\n" + out);
        return out.strip().lines().reduce((a, b) -> b).orElse("");
    }

    private static String readAll(InputStream in) throws IOException {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The child JVM: makes the pool as the connector does, then prints the level in force. */
    static final class Child {

        public static void main(String[] args) {
            WriteBehindMemory.newAllocator(1);
            System.out.println(ResourceLeakDetector.getLevel());
        }
    }
}
