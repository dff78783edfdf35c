#!/bin/bash
# cell.sh PID PORT SECONDS [CONNECTIONS] [KB]: one measured window of wrk (tccx, CPU 1) against the Tomcat JVM PID.
# Prints req/s, CPU us per request from /proc/PID/stat (user, system), context switches per request summed over
# /proc/PID/task/*/status, and the threads (by name) that used the CPU.
PID=$1; PORT=$2; T=$3; C=${4:-100}; KB=${5:-100}
TICK=$(getconf CLK_TCK); TMP=$(mktemp -d)
times() { awk '{print $14, $15}' /proc/$PID/stat; }
switches() { cat /proc/$PID/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s}'; }
threads() { for t in /proc/$PID/task/*; do echo "$(tr ' ' '_' < $t/comm 2>/dev/null) $(awk '{print $14 + $15}' $t/stat 2>/dev/null)"; done; }
threads > $TMP/before
read u0 s0 <<<"$(times)"; c0=$(switches)
out=$(ip netns exec tccx taskset -c 1 wrk -t1 -c$C -d${T}s "http://10.88.0.1:$PORT/samples/size?kb=$KB" 2>&1)
read u1 s1 <<<"$(times)"; c1=$(switches)
threads > $TMP/after
python3 - "$(echo "$out" | awk '/requests in/ {print $1}')" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    $u0 $s0 $u1 $s1 $c0 $c1 $TICK $TMP "$(echo "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ')" <<'PY'
import sys
reqs, rps = int(sys.argv[1]), float(sys.argv[2])
u0, s0, u1, s1, c0, c1, tick = map(int, sys.argv[3:10])
us = lambda ticks: ticks * 1e6 / tick / reqs
print(f"req/s {rps:.0f} cpu {us(u1 - u0 + s1 - s0):.0f} us/req (user {us(u1 - u0):.0f} sys {us(s1 - s0):.0f}) "
      f"cs/req {(c1 - c0) / reqs:.2f} {sys.argv[11]}")
def load(name):
    d = {}
    for line in open(f"{sys.argv[10]}/{name}"):
        p = line.split()
        if len(p) == 2:
            d[p[0]] = d.get(p[0], 0) + int(p[1])
    return d
a, b = load("before"), load("after")
top = sorted(((b[k] - a.get(k, 0), k) for k in b), reverse=True)[:5]
print("  threads:", ", ".join(f"{k} {us(v):.0f}" for v, k in top if v > 0))
PY
rm -rf $TMP
