package io.hybridconnector.bench.harness.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class CountersParsingTest {

    @Test
    void cpuTicksAreUtimePlusStimeEvenWhenTheCommandNameHasSpacesAndParentheses() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 9 0 0 0 1234 567 0 0 20 0 30 0 100 0 0";
        assertEquals(1234 + 567, ProcStats.cpuTicks(stat));
    }

    @Test
    void hostStealIsTheEighthFieldOfTheCpuLineAndGuestTimeIsNotCountedTwice() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        long[] before = ProcStats.stealAndTotalTicks("cpu  1000 0 500 2000 10 0 300 40 700 0");
        long[] after = ProcStats.stealAndTotalTicks("cpu  1400 0 700 2300 10 0 400 140 900 0");
        assertEquals(40, before[0]);
        assertEquals(1000 + 500 + 2000 + 10 + 300 + 40, before[1]);
        assertEquals(100.0 / (400 + 200 + 300 + 100 + 100), ProcStats.stealShare(before, after), 1e-9);
        assertEquals(0, ProcStats.stealAndTotalTicks("cpu  5 0 5 10 0 0 0")[0], "a kernel without the steal field");
        assertEquals(0.0, ProcStats.stealShare(after, after), "no time passed");
    }

    @Test
    void contextSwitchFieldsAreRead() {
        String status = "Name:\tjava\nvoluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t5\n";
        assertEquals(17, ProcStats.field(status, "voluntary_ctxt_switches:"));
        assertEquals(5, ProcStats.field(status, "nonvoluntary_ctxt_switches:"));
    }

    @Test
    void perfCountsAreSummedPerColumnAndWakeUpsTakenOutOfWrites() throws Exception {
        // One line per event in PerfSyscalls.EVENTS order, as `perf stat -x,` prints them.
        long[] counts = { 100, 3, 150, 20, 20, 7, 1, 40, 5, 6, 2, 9, 4 };
        List<String> lines = new java.util.ArrayList<>(List.of("# started", ""));
        for (int i = 0; i < counts.length; i++) {
            lines.add(counts[i] + ",," + PerfSyscalls.EVENTS.get(i).tracepoint() + ",1000,100.00,,");
        }
        Map<String, Long> m = PerfSyscalls.parse(lines);
        assertEquals(103, m.get("read"));
        assertEquals(150 - 20 + 7 + 1, m.get("write"));
        assertEquals(20, m.get("wakeup"));
        assertEquals(40, m.get("futex"));
        assertEquals(11, m.get("epoll_wait"));
        assertEquals(2, m.get("epoll_ctl"));
        assertEquals(13, m.get("eagain"));
    }
}
