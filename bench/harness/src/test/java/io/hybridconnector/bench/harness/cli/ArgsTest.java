package io.hybridconnector.bench.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class ArgsTest {

    @Test
    void readsNamesValuesAndFlagsInOrder() {
        Args a = new Args(new String[] { "--rounds", "3", "--no-pin", "--jvm-opts", "-Xmx1g" }, "HELP");
        assertEquals("--rounds", a.next());
        assertEquals(3, a.positive());
        assertEquals(List.of("--rounds", "3"), a.current());
        assertEquals("--no-pin", a.next());
        assertEquals(List.of("--no-pin"), a.current());
        assertEquals("--jvm-opts", a.next());
        assertEquals("-Xmx1g", a.value(), "a value may start with a dash");
        assertFalse(a.hasNext());
    }

    @Test
    void errorsNameTheOptionAndCarryTheHelp() {
        Args a = new Args(new String[] { "--rounds", "0", "--duration" }, "HELP");
        a.next();
        IllegalArgumentException notPositive = assertThrows(IllegalArgumentException.class, a::positive);
        assertTrue(notPositive.getMessage().startsWith("--rounds must be above 0, got 0\nHELP"));
        a.next();
        assertTrue(assertThrows(IllegalArgumentException.class, a::value).getMessage().startsWith("--duration needs"));
        assertEquals("unknown option --duration\nHELP", a.unknown().getMessage());
    }
}
