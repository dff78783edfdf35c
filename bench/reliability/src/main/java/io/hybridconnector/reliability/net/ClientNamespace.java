package io.hybridconnector.reliability.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A network namespace for clients that must vanish without a FIN or a reset reaching the server: the namespace is
 * joined to the host by a veth pair ({@value #SERVER_ADDRESS} on the host's end, {@value #CLIENT_ADDRESS} on the
 * namespace's, a /30), the server listens on the host's end, and {@link #cutLink} takes the namespace's end down.
 * From then on nothing passes either way: what the client's kernel sends (a FIN or a reset when the client is killed)
 * has no route, and what the server sends is dropped by the host's end, whose peer is down.
 *
 * <p>Why the namespace's end and not the host's: taking the host's end down withdraws its routes, and the server's
 * retransmissions to {@value #CLIENT_ADDRESS} would follow the default route out of the machine; with the host's end
 * up (its carrier lost) the route stays and the veth drops them. {@link #close} destroys what is left (the server's
 * orphaned sockets retrying a FIN, the dead client's ones), still behind the cut link, then deletes the pair and the
 * namespace: a namespace with orphaned sockets in it outlives {@code ip netns del}, and so would its veth.
 *
 * <p>Needs root and {@code ip} (iproute2) with {@code ss}. Names and addresses are fixed: one run of the suite at a
 * time per machine. Created and closed by the scenario's main thread.
 */
public final class ClientNamespace implements AutoCloseable {

    public static final String NAME = "rel-vanish";
    public static final String SERVER_ADDRESS = "10.231.0.1";
    public static final String CLIENT_ADDRESS = "10.231.0.2";
    private static final String HOST_END = "rvanish-h";
    private static final String CLIENT_END = "rvanish-c";

    private ClientNamespace() {
    }

    /**
     * Creates the namespace and the pair, after removing what an interrupted run of this suite left with the same
     * names. Fails with the command's output when it cannot (not root, no {@code ip}, another run holding the
     * namespace): the scenario then reports the part as not run, with that reason.
     */
    public static ClientNamespace create() throws IOException, InterruptedException {
        Result pids = run("ip", "netns", "pids", NAME);
        if (pids.ok() && !pids.output().isBlank()) {
            throw new IOException("network namespace " + NAME + " exists and holds processes (another run?)");
        }
        List<String> leftovers = removeLeftovers();
        if (!leftovers.isEmpty()) {
            throw new IOException("removing a previous run's namespace: " + String.join("; ", leftovers));
        }
        ClientNamespace ns = new ClientNamespace();
        try {
            sh("ip", "netns", "add", NAME);
            sh("ip", "link", "add", HOST_END, "type", "veth", "peer", "name", CLIENT_END);
            sh("ip", "link", "set", CLIENT_END, "netns", NAME);
            sh("ip", "addr", "add", SERVER_ADDRESS + "/30", "dev", HOST_END);
            sh("ip", "-n", NAME, "addr", "add", CLIENT_ADDRESS + "/30", "dev", CLIENT_END);
            sh("ip", "link", "set", HOST_END, "up");
            sh("ip", "-n", NAME, "link", "set", CLIENT_END, "up");
            sh("ip", "-n", NAME, "link", "set", "lo", "up");
        } catch (IOException | InterruptedException e) {
            try {
                ns.close();
            } catch (IOException | InterruptedException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return ns;
    }

    /** {@code command} run inside the namespace ({@code ip netns exec} execs it: the process is the command's). */
    public List<String> inside(List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", NAME));
        c.addAll(command);
        return c;
    }

    /** Takes the namespace's end of the pair down: nothing passes in either direction from now on. */
    public void cutLink() throws IOException, InterruptedException {
        sh("ip", "-n", NAME, "link", "set", CLIENT_END, "down");
    }

    /**
     * Destroys the sockets left behind the cut link (their resets are dropped there), then deletes the pair and the
     * namespace. Every step is tried even if one fails; the failures are thrown at the end.
     */
    @Override
    public void close() throws IOException, InterruptedException {
        List<String> failed = new ArrayList<>();
        for (String[] step : new String[][] { { "ip", "netns", "exec", NAME, "ss", "-K", "-t", "-a" },
                { "ss", "-K", "-t", "-a", "dst", CLIENT_ADDRESS } }) {
            Result r = run(step);
            if (!r.ok()) {
                failed.add(String.join(" ", step) + ": " + r.output());
            }
        }
        failed.addAll(removeLeftovers());
        if (run("ip", "link", "show", HOST_END).ok() || run("ip", "netns", "pids", NAME).ok()) {
            failed.add("veth " + HOST_END + " or namespace " + NAME + " still there");
        }
        if (!failed.isEmpty()) {
            throw new IOException("tearing down the client namespace: " + String.join("; ", failed));
        }
    }

    /** Deletes the host's end (and so its peer) and the namespace, if there; returns what failed. */
    private static List<String> removeLeftovers() throws IOException, InterruptedException {
        List<String> failed = new ArrayList<>();
        if (run("ip", "link", "show", HOST_END).ok()) {
            Result r = run("ip", "link", "del", HOST_END);
            if (!r.ok()) {
                failed.add("ip link del " + HOST_END + ": " + r.output());
            }
        }
        if (run("ip", "netns", "pids", NAME).ok()) {
            Result r = run("ip", "netns", "del", NAME);
            if (!r.ok()) {
                failed.add("ip netns del " + NAME + ": " + r.output());
            }
        }
        return failed;
    }

    private record Result(boolean ok, String output) {
    }

    /** Runs a short command ({@code ip}, {@code ss}) to its end, with its output. */
    private static Result run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return new Result(p.waitFor() == 0, out);
    }

    private static void sh(String... command) throws IOException, InterruptedException {
        Result r = run(command);
        if (!r.ok()) {
            throw new IOException(String.join(" ", command) + " failed: " + r.output());
        }
    }
}
