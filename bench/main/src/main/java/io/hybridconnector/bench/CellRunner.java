package io.hybridconnector.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.CellSpec;
import io.hybridconnector.bench.harness.load.LoadGenerator;
import io.hybridconnector.bench.report.Measurement;
import io.hybridconnector.bench.harness.measure.ProcStats;
import io.hybridconnector.bench.harness.measure.ServerProbe;

/**
 * Runs one cell (a {@code /samples/size?kb=} size at a concurrency) against one port of a running server process
 * and returns the client's and the server's numbers. Runs on the calling thread; the entry point for harnesses
 * other than {@link Compare}.
 */
public final class CellRunner {

    private final long serverPid;
    private final ProcStats proc;
    private final boolean perf;
    private final Path workDir;
    private final Duration requestTimeout;
    private final int serverCpu;

    /**
     * @param serverPid      process whose /proc counters (and perf syscalls) are sampled
     * @param perf           count syscalls with perf (check {@code PerfSyscalls.works()} first)
     * @param workDir        where perf's control FIFOs go
     * @param requestTimeout a request unanswered this long counts as an error
     * @param serverCpu      the CPU the server is pinned to (its busy time is reported), or -1
     */
    public CellRunner(long serverPid, boolean perf, Path workDir, Duration requestTimeout, int serverCpu) {
        this.serverCpu = serverCpu;
        this.serverPid = serverPid;
        this.proc = new ProcStats(serverPid);
        this.perf = perf;
        this.workDir = workDir;
        this.requestTimeout = requestTimeout;
    }

    public Measurement run(int port, Measurement.Cell cell, String connector, int round, Duration warmup,
            Duration duration) throws IOException, InterruptedException {
        CellSpec spec = new CellSpec(new InetSocketAddress("127.0.0.1", port), CellSpec.sizePath(cell.kb()),
                cell.concurrency(), warmup, duration, requestTimeout, CellSpec.sizeBytes(cell.kb())).withCloseEach(cell.close());
        ServerProbe probe = new ServerProbe(proc, serverPid, perf, workDir, serverCpu);
        CellResult client = LoadGenerator.run(spec, probe);
        return new Measurement(cell, connector, round, client, probe.finish());
    }
}
