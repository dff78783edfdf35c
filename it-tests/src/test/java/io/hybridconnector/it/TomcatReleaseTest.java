package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.catalina.util.ServerInfo;
import org.junit.jupiter.api.Test;

/**
 * The suite runs on the Tomcat release its build names ({@code it.expectedTomcat}): the oldest-release executions swap
 * the Tomcat jars on the test class path, and a swap that silently fell back to the compile-time release would let
 * every other test pass without testing the oldest release at all.
 */
class TomcatReleaseTest {

    @Test
    void theSuiteRunsOnTheReleaseItNames() {
        String expected = System.getProperty("it.expectedTomcat");
        System.out.println("Tomcat under test: " + ServerInfo.getServerInfo() + " (expected " + expected + ")");
        assertEquals(expected, ServerInfo.getServerNumber().replaceFirst("^(\\d+\\.\\d+\\.\\d+).*", "$1"));
    }
}
