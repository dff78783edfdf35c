#!/bin/bash
# cell.sh PID PORT SECONDS [CONNECTIONS] [KB]: one measured window of wrk (CLIENT_NS, CPU 1; env.sh) against the
# JVM PID.
# Prints req/s, CPU us per request from /proc/PID/stat (user, system), context switches per request summed over
# /proc/PID/task/*/status per thread (a thread that exits during the window keeps what it had counted, one that
# starts counts from zero), and the threads (by name) that used the CPU.
. "$(dirname "$0")"/env.sh
PID=$1; PORT=$2; T=$3; C=${4:-100}; KB=${5:-100}
TICK=$(getconf CLK_TCK); TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
times() { awk '{print $14, $15}' /proc/$PID/stat; }
switches() { for t in /proc/$PID/task/*; do awk -v t=${t##*/} '/ctxt_switches/ {s += $2} END {if (s) print t, s}' \
    $t/status 2>/dev/null; done; }
threads() { for t in /proc/$PID/task/*; do echo "$(tr ' ' '_' < $t/comm 2>/dev/null) $(awk '{print $14 + $15}' $t/stat 2>/dev/null)"; done; }
threads > $TMP/before
read u0 s0 <<<"$(times)"; switches > $TMP/switches-before
out=$("${IN_CLIENT_NS[@]}" taskset -c 1 wrk -t1 -c$C -d${T}s "http://$HOST:$PORT/samples/$EP?kb=$KB" 2>&1)
read u1 s1 <<<"$(times)"; switches > $TMP/switches-after
threads > $TMP/after
python3 - "$(echo "$out" | awk '/requests in/ {print $1}')" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    $u0 $s0 $u1 $s1 $TICK $TMP "$(echo "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ')" <<'PY'
import sys
reqs, rps = int(sys.argv[1]), float(sys.argv[2])
u0, s0, u1, s1, tick = map(int, sys.argv[3:8])
tmp, errors = sys.argv[8], sys.argv[9]
def per_thread(name):
    return {t: int(n) for t, n in (line.split() for line in open(f"{tmp}/{name}") if line.strip())}
before, after = per_thread("switches-before"), per_thread("switches-after")
switches = sum(n - before.get(t, 0) for t, n in after.items())
us = lambda ticks: ticks * 1e6 / tick / reqs
print(f"req/s {rps:.0f} cpu {us(u1 - u0 + s1 - s0):.1f} us/req (user {us(u1 - u0):.1f} sys {us(s1 - s0):.1f}) "
      f"cs/req {switches / reqs:.2f} {errors}")
def load(name):
    d = {}
    for line in open(f"{tmp}/{name}"):
        p = line.split()
        if len(p) == 2:
            d[p[0]] = d.get(p[0], 0) + int(p[1])
    return d
a, b = load("before"), load("after")
top = sorted(((b[k] - a.get(k, 0), k) for k in b), reverse=True)[:5]
print("  threads:", ", ".join(f"{k} {us(v):.1f}" for v, k in top if v > 0))
PY
rm -rf $TMP
