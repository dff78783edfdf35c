package io.hybridconnector.reliability.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The rules of the deadline faults' verdicts, one case each way. */
class FaultVerdictsTest {

    @Test
    void leftBehindIsOkBackAtTheStartOrNoFurtherThanStock() {
        assertEquals("ok", FaultVerdicts.leftBehind(2, 1, 2, 2));
        assertEquals("ok", FaultVerdicts.leftBehind(12, 150, 4, 6));
        assertEquals("worse", FaultVerdicts.leftBehind(12, 12, 4, 6));
    }

    @Test
    void parkedThreadsAreOkOnlyWhenIdleAndNoMoreThanStocks() {
        assertEquals("ok", FaultVerdicts.threads(12, 12, 4, 8, 0));
        assertEquals("worse", FaultVerdicts.threads(12, 12, 4, 8, 1), "a request still holds one");
        assertEquals("worse", FaultVerdicts.threads(12, 12, 4, 13, 0), "more than stock");
        assertEquals("ok", FaultVerdicts.threads(12, 12, 8, 8, 3), "back at the start");
    }

    @Test
    void fdsAllowAnEpollAndAnEventfdPerAddedThreadButNoSocket() {
        assertEquals("ok", FaultVerdicts.fds(-2, 0, 2, 4));
        assertEquals("worse", FaultVerdicts.fds(-2, 1, 0, 4), "a socket kept");
        assertEquals("worse", FaultVerdicts.fds(0, 0, 3, 1), "more than one selector per thread");
        assertEquals("ok", FaultVerdicts.fds(1, 1, 0, 0), "no more sockets than stock kept");
    }

    @Test
    void aCutIsOkNoLaterThanStockPlusTheSlackAndHoldingWhatStockCutDiffers() {
        assertEquals("ok", FaultVerdicts.cut(5.3, 6.2));
        assertEquals("worse", FaultVerdicts.cut(5.3, 6.4));
        assertEquals("differs", FaultVerdicts.cut(6.3, null));
        assertEquals("ok", FaultVerdicts.cut(null, null));
        assertEquals("ok", FaultVerdicts.cut(null, 5.0));
    }

    @Test
    void aResponseWhereStockOnlyClosesIsOkTheOtherWayRoundDiffers() {
        List<String> closed = List.of("no response, closed", "no response, closed");
        List<String> answered = List.of("503 complete, closed", "503 complete, closed");
        assertEquals("ok", FaultVerdicts.answers(closed, answered, false, true));
        assertEquals("differs", FaultVerdicts.answers(answered, closed, true, false));
        assertEquals("ok", FaultVerdicts.answers(answered, List.copyOf(answered), true, true));
    }
}
