package io.hybridconnector.reliability.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The kernel's TCP sockets ({@code /proc/net/tcp} and {@code /proc/net/tcp6}), read to tell which of a vanished
 * client's connections the server still holds: the client can no longer tell (it is gone), and Tomcat's connection
 * count does not say which connection went. The server holds a socket while its inode is among the server process's
 * fds; once the server has closed it, the kernel either forgets it or keeps it as an orphan (inode 0) in FIN-WAIT-1,
 * retrying a FIN nobody receives. Stateless; reads the table of the caller's network namespace.
 */
public final class TcpTable {

    /** The kernel's number of the LISTEN state, the one row per port that is no connection. */
    public static final int LISTEN = 0x0A;

    /**
     * One row.
     *
     * @param state as the kernel numbers it: 1 ESTABLISHED, 4 FIN-WAIT-1, 8 CLOSE-WAIT, 10 LISTEN, ...
     * @param inode 0 when no process holds the socket any more (an orphan)
     */
    public record Socket(InetSocketAddress local, InetSocketAddress remote, int state, long inode) {
    }

    private TcpTable() {
    }

    /** Every TCP socket of this network namespace, IPv4 and IPv6 (IPv4-mapped addresses come out as IPv4). */
    public static List<Socket> read() throws IOException {
        List<Socket> all = new ArrayList<>();
        for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                all.addAll(parse(Files.readAllLines(Path.of(file))));
            } catch (NoSuchFileException ipv6Disabled) {
                // a kernel without IPv6 has no tcp6
            }
        }
        return all;
    }

    /** The rows of one such file, its header line included (skipped). */
    static List<Socket> parse(List<String> lines) throws UnknownHostException {
        List<Socket> sockets = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10 || !f[0].endsWith(":")) {
                continue; // the header
            }
            sockets.add(new Socket(endpoint(f[1]), endpoint(f[2]), Integer.parseInt(f[3], 16),
                    Long.parseLong(f[9])));
        }
        return sockets;
    }

    /** {@code ADDRESS:PORT} in hex, the address as 32-bit words in the host's byte order, the port big-endian. */
    static InetSocketAddress endpoint(String hex) throws UnknownHostException {
        int colon = hex.indexOf(':');
        byte[] words = HexFormat.of().parseHex(hex, 0, colon);
        ByteBuffer in = ByteBuffer.wrap(words).order(ByteOrder.nativeOrder());
        ByteBuffer address = ByteBuffer.allocate(words.length).order(ByteOrder.BIG_ENDIAN);
        while (in.hasRemaining()) {
            address.putInt(in.getInt());
        }
        return new InetSocketAddress(InetAddress.getByAddress(address.array()),
                Integer.parseInt(hex.substring(colon + 1), 16));
    }

    /** Inodes of the sockets among the fds of process {@code pid} (links {@code socket:[INODE]}). */
    public static Set<Long> socketInodes(long pid) throws IOException {
        Set<Long> inodes = new HashSet<>();
        for (String link : ProcessFds.links(pid)) {
            if (link.startsWith("socket:[")) {
                inodes.add(Long.parseLong(link.substring(8, link.length() - 1)));
            }
        }
        return inodes;
    }
}
