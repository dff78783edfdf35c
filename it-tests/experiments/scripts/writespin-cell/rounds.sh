#!/bin/bash
# rounds.sh PID [ROUNDS] [SECONDS]: interleaved rounds over stock NIO (8081), ours (8082) and ours with spin (8083),
# the order rotated each round; each window after 3 s of unmeasured load on fresh connections. KB=100 by default.
# Warm each connector up first (e.g. 20 s of wrk per port).
PID=$1; R=${2:-5}; T=${3:-15}; DIR=$(dirname "$0")
ports=(8081 8082 8083); names=(nio ours spin)
for r in $(seq $R); do
  for k in 0 1 2; do
    i=$(( (k + r) % 3 ))
    ip netns exec tccx taskset -c 1 wrk -t1 -c100 -d3s "http://10.88.0.1:${ports[$i]}/samples/size?kb=${KB:-100}" >/dev/null 2>&1
    echo "round $r ${names[$i]}: $("$DIR"/cell.sh $PID ${ports[$i]} $T 100 ${KB:-100} | tr '\n' ' ')"
  done
done
