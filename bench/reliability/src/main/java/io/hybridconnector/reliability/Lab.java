package io.hybridconnector.reliability;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.hybridconnector.reliability.report.Findings;

/**
 * What every scenario needs: where the distribution, our jar and the WAR are, where to lay out CATALINA_BASEs, the
 * profile, and the findings to add to. Used from the harness's main thread.
 *
 * @param ourAttributes attributes every scenario's connector of ours gets besides its own (e.g. {@code
 *                      timeSlicing='off'}), to compare a setting; empty for none
 * @param runAs         the user Tomcat runs as ({@code null}: this process's user)
 */
public record Lab(Path catalinaHome, Path connectorJar, Path samplesWar, Path runDir, Path resultsDir,
        Profile profile, Findings findings, String ourAttributes, String runAs) {

    public static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public void log(String format, Object... args) {
        OUT.printf(format + "%n", args);
    }
}
