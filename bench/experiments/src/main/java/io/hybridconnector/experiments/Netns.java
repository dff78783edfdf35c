package io.hybridconnector.experiments;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The write-spin condition without netem: the server in one network namespace ({@code 10.77.0.1}, send buffer
 * {@code net.ipv4.tcp_wmem="4096 16384 16384"}), the client in another ({@code 10.77.0.2}), joined by a veth pair
 * (MTU 1500); the client's {@code net.ipv4.tcp_rmem} is set per cell. Needs root. Created and deleted by the
 * harness; namespaces that already exist and hold processes belong to someone else and are never touched (then
 * the harness uses its own names, with the same addresses: namespaces are isolated). Main thread only.
 */
final class Netns implements AutoCloseable {

    static final String SERVER_ADDRESS = "10.77.0.1";
    static final String CLIENT_ADDRESS = "10.77.0.2";
    static final String SERVER_WMEM = "4096 16384 16384";

    final String server;
    final String client;
    private final PrintStream log;
    private boolean created;

    private Netns(String server, String client, PrintStream log) {
        this.server = server;
        this.client = client;
        this.log = log;
    }

    static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor() == 0 && out.equals("0");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Creates the pair, preferring the names tcsrv/tccli when nobody else uses them. */
    static Netns create(PrintStream log) throws IOException, InterruptedException {
        String srv = "tcsrv";
        String cli = "tccli";
        if (inUse(srv) || inUse(cli)) {
            log.println("  netns tcsrv/tccli exist and hold other processes (another run?): using tcsrv-exp/tccli-exp"
                    + " with the same addresses and sysctls instead, leaving theirs alone");
            srv = "tcsrv-exp";
            cli = "tccli-exp";
        }
        Netns n = new Netns(srv, cli, log);
        n.delete(); // leftovers of an interrupted run of ours (these names are free of other processes)
        String vs = srv.equals("tcsrv") ? "vsrv" : "vsrvx";
        String vc = srv.equals("tcsrv") ? "vcli" : "vclix";
        n.created = true;
        sh("ip", "netns", "add", srv);
        sh("ip", "netns", "add", cli);
        sh("ip", "link", "add", vs, "type", "veth", "peer", "name", vc);
        sh("ip", "link", "set", vs, "netns", srv);
        sh("ip", "link", "set", vc, "netns", cli);
        sh("ip", "-n", srv, "addr", "add", SERVER_ADDRESS + "/24", "dev", vs);
        sh("ip", "-n", cli, "addr", "add", CLIENT_ADDRESS + "/24", "dev", vc);
        for (String[] nsDev : new String[][] { { srv, vs }, { cli, vc }, { srv, "lo" }, { cli, "lo" } }) {
            sh("ip", "-n", nsDev[0], "link", "set", nsDev[1], "up");
        }
        sh("ip", "netns", "exec", srv, "sysctl", "-q", "-w", "net.ipv4.tcp_wmem=" + SERVER_WMEM);
        log.printf("  netns %s (%s, tcp_wmem \"%s\") <-veth-> %s (%s)%n", srv, SERVER_ADDRESS, SERVER_WMEM, cli,
                CLIENT_ADDRESS);
        return n;
    }

    private static boolean inUse(String ns) {
        try {
            Process p = new ProcessBuilder("ip", "netns", "pids", ns).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor() == 0 && !out.isEmpty();
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Run from inside the client namespace (the child harness): sets the client's receive buffer. */
    static void setClientRmem(String value) throws IOException, InterruptedException {
        sh("sysctl", "-q", "-w", "net.ipv4.tcp_rmem=" + value);
    }

    private void delete() throws InterruptedException {
        for (String ns : List.of(server, client)) {
            try {
                new ProcessBuilder("ip", "netns", "del", ns).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
            } catch (IOException ignored) {
                // not there
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (created) {
            delete();
            log.printf("  netns %s and %s deleted%n", server, client);
        }
    }

    static String sh(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
