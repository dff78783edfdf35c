#!/bin/bash
# The write-spin cell of issue 3 by hand: server namespace tcsx (10.88.0.1, 16 KB send buffer) and client namespace
# tccx (10.88.0.2, RMEM = 4 KB receive buffer by default) joined by a veth pair. Root. Undo: ip netns del tcsx tccx.
set -e
ip netns del tcsx 2>/dev/null || true
ip netns del tccx 2>/dev/null || true
ip netns add tcsx
ip netns add tccx
ip link add vs type veth peer name vc
ip link set vs netns tcsx
ip link set vc netns tccx
ip -n tcsx addr add 10.88.0.1/24 dev vs
ip -n tccx addr add 10.88.0.2/24 dev vc
for ns in tcsx tccx; do ip -n $ns link set lo up; done
ip -n tcsx link set vs up
ip -n tccx link set vc up
ip netns exec tcsx sysctl -q -w net.ipv4.tcp_wmem="4096 16384 16384"
ip netns exec tccx sysctl -q -w net.ipv4.tcp_rmem="${RMEM:-4096 4096 4096}"
