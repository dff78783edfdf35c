package io.hybridconnector.rubbos.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

class ThreeTierRunOptionsTest {

    private static ThreeTierRun parse(String... args) {
        ThreeTierRun run = new ThreeTierRun();
        ThreeTierRun.commandLine(run).parseArgs(args);
        return run;
    }

    @Test
    void theWarmUpIsLongerWhenTomcatIsCapped() {
        assertEquals(20, parse().warmupSeconds());
        // Under a CPU quota the JIT compiler gets the same share of a CPU: 40 s left stock NIO 44 % below its peak.
        assertEquals(240, parse("--tomcat-cpu-share", "0.3").warmupSeconds());
    }

    @Test
    void anExplicitWarmUpWins() {
        assertEquals(40, parse("--tomcat-cpu-share", "0.3", "--warmup", "40").warmupSeconds());
        assertEquals(0, parse("--warmup", "0").warmupSeconds());
    }

    @Test
    void theDataLoadAndTheMissingServerChoicesAreCheckedWhenParsed() {
        assertEquals(ThreeTierRun.DataLoad.AUTO, parse().load);
        assertEquals(ThreeTierRun.DataLoad.ALWAYS, parse("--load=always").load);
        assertEquals(ThreeTierRun.WhenMissing.FAIL, parse().ifMissing);
        assertEquals(ThreeTierRun.WhenMissing.EMBEDDED, parse("--if-missing", "embedded").ifMissing);
        // A typo used to run as "auto" without a word.
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> parse("--load=sometimes"));
        assertTrue(e.getMessage().contains("--load") && e.getMessage().contains("AUTO, ALWAYS, NEVER"), e.getMessage());
    }

    @Test
    void theHelpFormatsEveryDescription() {
        // A bare '%' in a description makes picocli warn on stderr and show the text unformatted.
        PrintStream stderr = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            ThreeTierRun.commandLine(new ThreeTierRun()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        } finally {
            System.setErr(stderr);
        }
        assertEquals("", warnings.toString(StandardCharsets.UTF_8));
    }
}
