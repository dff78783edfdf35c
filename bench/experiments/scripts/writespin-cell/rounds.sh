#!/bin/bash
# rounds.sh PID [ROUNDS] [SECONDS]: interleaved rounds over stock NIO (8081), ours (8082) and ours with spin (8083)
# of the Tomcat JVM PID, the order rotated each round; each window after 3 s of unmeasured load on fresh
# connections. KB=100 by default. SERVERS="PORT:NAME:PID ..." replaces the list, e.g. to add the peers of
# start-peers.sh (8084:jetty:JETTY_PID 8085:nginx:NGINX_PID). Warm each server up first (20 s of wrk per port).
PID=$1; R=${2:-5}; T=${3:-15}; DIR=$(dirname "$0")
. "$DIR"/env.sh
read -ra servers <<<"${SERVERS:-8081:nio:$PID 8082:ours:$PID 8083:spin:$PID}"
n=${#servers[@]}
for r in $(seq $R); do
  for k in $(seq 0 $((n - 1))); do
    IFS=: read -r port name pid <<<"${servers[$(( (k + r) % n ))]}"
    "${IN_CLIENT_NS[@]}" taskset -c 1 wrk -t1 -c100 -d3s "http://$HOST:$port/samples/$EP?kb=${KB:-100}" >/dev/null 2>&1
    echo "round $r $name: $("$DIR"/cell.sh $pid $port $T 100 ${KB:-100} | tr '\n' ' ')"
  done
done
