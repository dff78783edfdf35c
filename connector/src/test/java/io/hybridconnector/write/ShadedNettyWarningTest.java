package io.hybridconnector.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The shaded Netty prints nothing on the JVM's stderr (issue 17: on Java 25 its first use of {@code sun.misc.Unsafe}
 * made the JVM print "WARNING: A terminally deprecated method in sun.misc.Unsafe has been called" as the connector
 * started). The JVM prints that warning once per process, so each check starts a child JVM on the test's class path
 * that takes write-behind memory from the pool, writes it out and gives it back, and reads what the child printed:
 * on the JDK running the tests, and on a Java 25 where one is installed.
 */
class ShadedNettyWarningTest {

    private static final Path JAVA_25 = Paths.get("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    private static final String DONE = "write-behind memory taken and given back";

    @Test
    void quietOnThisJdk() throws Exception {
        assertQuiet(Paths.get(System.getProperty("java.home"), "bin", "java"));
    }

    @Test
    void quietOnJava25() throws Exception {
        assumeTrue(Files.isExecutable(JAVA_25), "no Java 25 at " + JAVA_25 + ": checked on this JDK only");
        assertQuiet(JAVA_25);
    }

    private static void assertQuiet(Path java) throws Exception {
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                Child.class.getName()).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(child.getErrorStream()));
        String out = readAll(child.getInputStream());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), java + ": the child did not end");
        String stderr = err.get(10, TimeUnit.SECONDS);
        assertEquals(0, child.exitValue(), java + ": the child failed; stderr:\n" + stderr);
        assertTrue(out.contains(DONE), java + ": the child did not finish; stdout:\n" + out + "\nstderr:\n" + stderr);
        for (String line : stderr.split("\\R")) {
            assertTrue(!line.contains("sun.misc.Unsafe") && !line.startsWith("WARNING:"),
                    java + " printed a warning; stderr:\n" + stderr);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** The child JVM: a response held behind a slow socket, written out in parts, then one dropped by a close. */
    static final class Child {

        public static void main(String[] args) throws Exception {
            WriteBehindBuffer behind = new WriteBehindBuffer(WriteBehindMemory.newAllocator(1), 256 * 1024,
                    new WriteCounters());
            GatheringByteChannel socket = new PartialSocket(16 * 1024);
            ByteBuffer response = ByteBuffer.allocate(100 * 1024);
            while (response.hasRemaining()) {
                behind.append(response);
            }
            while (!behind.isEmpty()) {
                behind.writeTo(socket);
            }
            behind.append(ByteBuffer.allocate(50 * 1024));
            behind.close();
            System.out.println(DONE);
        }
    }
}
