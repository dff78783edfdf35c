#!/bin/bash
# WebSocket echo, useAsyncIO true vs false, ours and stock NIO: 16 sessions x 100-byte text messages, closed loop.
# Server (WsServer.java, embedded Tomcat 10.1.59) on CPU 0, load (WsLoad.java, the JDK's WebSocket client) on CPU 1;
# per cell a fresh server, 5 s of warm-up load, then 10 s measured; 3 rounds, the 4 variants interleaved.
# Needs: mvn -B -q -pl connector -am package -DskipTests (the connector jar) and the Tomcat jars in ~/.m2.
set -uo pipefail
trap '[ -n "${spid:-}" ] && kill $spid 2>/dev/null' EXIT   # never leave a server holding the machine lock
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
M=~/.m2/repository
T=10.1.59
CP=$root/connector/target/hybrid-connector-0.1.0-SNAPSHOT.jar
for j in embed/tomcat-embed-core embed/tomcat-embed-websocket embed/tomcat-embed-el tomcat-annotations-api; do
  CP=$CP:$M/org/apache/tomcat/$j/$T/$(basename $j)-$T.jar
done
TCK=$(getconf CLK_TCK)
out=${OUT:-$here/results.csv}
echo "round,variant,useAsyncIO,messages,msg_per_s,cpu_us_per_msg" > "$out"
port=18580
for round in 1 2 3; do
  for v in "hybrid true" "hybrid false" "stock true" "stock false"; do
    set -- $v
    proto=io.hybridconnector.HybridHttp11Protocol; [ "$1" = stock ] && proto=org.apache.coyote.http11.Http11NioProtocol
    port=$((port+1))
    log=$(mktemp); echo "server log $log" >&2
    taskset -c 0 java -Xms256m -Xmx256m -cp "$CP" "$here/WsServer.java" $proto $port $2 > "$log" 2>&1 &
    spid=$!
    for i in $(seq 1 150); do grep -q READY "$log" && break; sleep 0.2; done
    grep -q READY "$log" || { echo "server did not start:"; cat "$log"; kill $spid; exit 1; }
    taskset -c 1 java -cp "$CP" "$here/WsLoad.java" ws://127.0.0.1:$port/echo 16 100 5 > /dev/null   # warm-up
    res=$(taskset -c 1 java -cp "$CP" "$here/WsLoad.java" ws://127.0.0.1:$port/echo 16 100 10 $spid)
    n=$(echo "$res" | awk '{print $2}'); secs=$(echo "$res" | awk '{print $4}'); ticks=$(echo "$res" | awk '{print $6}')
    rate=$(echo "scale=0; $n/$secs" | bc)
    cpu=$(echo "scale=2; $ticks*1000000/$TCK/$n" | bc)
    echo "$round,$1,$2,$n,$rate,$cpu" | tee -a "$out"
    kill $spid; wait $spid 2>/dev/null || true
    grep -i "exception\|severe" "$log" | head -3 || true
    rm -f "$log"
  done
done
