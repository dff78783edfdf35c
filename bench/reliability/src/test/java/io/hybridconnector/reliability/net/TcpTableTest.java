package io.hybridconnector.reliability.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Rows of /proc/net/tcp and tcp6 as a little-endian kernel (x86, arm64) writes them. */
class TcpTableTest {

    @BeforeAll
    static void littleEndianHost() {
        Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "rows written by an x86 kernel");
    }

    @Test
    void ipv4RowsGiveEndpointsStateAndInode() throws Exception {
        List<TcpTable.Socket> rows = TcpTable.parse(List.of(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   0: 0100007F:18EB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4657 1"
                        + " 000000003cd4ba19 100 0 0 10 0",
                "   1: 0100E70A:4652 0200E70A:B1F2 01 00000000:00000000 00:00000000 00000000     0        0 91234 1"
                        + " 000000003cd4ba19 20 4 30 10 -1"));
        assertEquals(2, rows.size());
        assertEquals(new InetSocketAddress("127.0.0.1", 0x18EB), rows.get(0).local());
        assertEquals(TcpTable.LISTEN, rows.get(0).state());
        assertEquals(4657, rows.get(0).inode());
        assertEquals(new InetSocketAddress("10.231.0.1", 18002), rows.get(1).local());
        assertEquals(new InetSocketAddress("10.231.0.2", 45554), rows.get(1).remote());
        assertEquals(1, rows.get(1).state());
    }

    @Test
    void ipv4MappedIpv6RowsComeOutAsIpv4AndOrphansHaveInodeZero() throws Exception {
        List<TcpTable.Socket> rows = TcpTable.parse(List.of(
                "  sl  local_address                         remote_address                        st tx_queue"
                        + " rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   7: 0000000000000000FFFF00000100E70A:4652 0000000000000000FFFF00000200E70A:B1F2 04 00035C21:00000000"
                        + " 01:00000155 00000005     0        0 0 3 0000000000000000",
                "   8: 00000000000000000000000001000000:1111 00000000000000000000000000000000:0000 0A 00000000:00000000"
                        + " 00:00000000 00000000   106        0 6354 1 00000000822235c6 100 0 0 10 0"));
        assertEquals(new InetSocketAddress("10.231.0.1", 18002), rows.get(0).local());
        assertEquals(new InetSocketAddress("10.231.0.2", 45554), rows.get(0).remote());
        assertEquals(4, rows.get(0).state());
        assertEquals(0, rows.get(0).inode());
        assertEquals(new InetSocketAddress("::1", 0x1111), rows.get(1).local());
    }
}
