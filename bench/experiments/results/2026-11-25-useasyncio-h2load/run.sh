#!/bin/bash
# h2load at 0.1 KB h2c prior knowledge, c=8 x 10 streams; server on CPU 0, load on CPU 1; 3 interleaved rounds.
M=~/.m2/repository
CP=/tmp/asyncio-src/bench/classes:$M/org/apache/tomcat/embed/tomcat-embed-core/10.1.59/tomcat-embed-core-10.1.59.jar:$M/org/apache/tomcat/tomcat-annotations-api/10.1.59/tomcat-annotations-api-10.1.59.jar:/work/wt-asyncio/connector/target/classes:$M/io/netty/netty-buffer/4.1.118.Final/netty-buffer-4.1.118.Final.jar:$M/io/netty/netty-common/4.1.118.Final/netty-common-4.1.118.Final.jar
N=${N:-300000}
TCK=$(getconf CLK_TCK)
out=/tmp/asyncio-src/bench/results.csv
echo "round,variant,useAsyncIO,reqs,rps,cpu_us_per_req" > $out
port=18480
for round in 1 2 3; do
  for v in "hybrid true" "hybrid false" "stock true" "stock false"; do
    set -- $v
    proto=io.hybridconnector.HybridHttp11Protocol; [ $1 = stock ] && proto=org.apache.coyote.http11.Http11NioProtocol
    port=$((port+1))
    taskset -c 0 java -Xms256m -Xmx256m -cp $CP H2Server $proto $port $2 > /tmp/asyncio-src/bench/server-$1-$2-$round.log 2>&1 &
    spid=$!
    for i in $(seq 1 100); do grep -q READY /tmp/asyncio-src/bench/server-$1-$2-$round.log && break; sleep 0.2; done
    timeout 120 taskset -c 1 h2load -n 50000 -c 8 -m 10 http://127.0.0.1:$port/size > /dev/null 2>&1   # warm-up
    s1=$(awk '{print $14+$15}' /proc/$spid/stat)
    res=$(timeout 120 taskset -c 1 h2load -n $N -c 8 -m 10 http://127.0.0.1:$port/size 2>&1)
    s2=$(awk '{print $14+$15}' /proc/$spid/stat)
    rps=$(echo "$res" | awk '/^finished in/ {print $4}')
    ok=$(echo "$res" | awk '/^requests:/ {print $8}')
    cpu=$(echo "scale=2; ($s2-$s1)*1000000/$TCK/$N" | bc)
    echo "$round,$1,$2,$ok,$rps,$cpu,load=$(cut -d" " -f1 /proc/loadavg)" | tee -a $out
    kill $spid; wait $spid 2>/dev/null
  done
done
