#!/usr/bin/env bash
# CPU per request of the Spring Boot 3.5 sample application (spring-boot/sample), stock NIO against ours, as the main
# job measures the connectors: the application pinned to CPU 0, wrk (Debian package `wrk`) pinned to CPU 1, a JIT
# warm-up, then ROUNDS interleaved rounds per path (stock, ours, stock, ours, ...), medians with (min-max).
# CPU: utime+stime of the application's process from /proc/PID/stat over the measured window; context switches:
# voluntary+nonvoluntary over /proc/PID/task/*/status. Both applications run at once on CPU 0, one idle while the
# other is measured. Settings by environment: ROUNDS (3), DURATION seconds (10), CONNS (50), PATHS ("/hi /big?kb=100"),
# JAVA (java), APP_OPTS (extra JVM or Spring options for both, e.g. "-Dspring.threads.virtual.enabled=true"), OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-10}; CONNS=${CONNS:-50}; PATHS=${PATHS:-"/hi /big?kb=100"}
JAVA=${JAVA:-java}; APP_OPTS=${APP_OPTS:-}; OUT=${OUT:-bench/boot/target/$(date +%F)}
command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 2; }
mkdir -p "$OUT"; OUT=$(realpath "$OUT")
mvn -B -q -pl spring-boot/sample/boot3 -am install -DskipTests
mvn -B -q -pl spring-boot/sample/boot3 dependency:build-classpath -Dmdep.outputFile="$OUT/classpath.txt" \
    -Dmdep.includeScope=runtime
CP="spring-boot/sample/boot3/target/classes:$(cat "$OUT/classpath.txt")"

declare -A PID PORT
PORT[stock]=18081; PORT[ours]=18082
start() { # name enabled
  taskset -c 0 "$JAVA" -Xms512m -Xmx512m $APP_OPTS -cp "$CP" io.hybridconnector.spring.sample.SampleApplication \
      --server.port="${PORT[$1]}" --server.tomcat.hybrid.enabled="$2" > "$OUT/$1.log" 2>&1 &
  PID[$1]=$!
}
stop_all() { kill "${PID[stock]}" "${PID[ours]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop_all EXIT
start stock false; start ours true
for name in stock ours; do
  for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:${PORT[$name]}/hi" >/dev/null && break; sleep 0.5; done
done
grep -h "HybridHttp11Protocol \[" "$OUT/ours.log" | head -1 || { echo "ours did not start HybridHttp11Protocol" >&2; exit 1; }

ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/_ctxt_switches/ {s+=$2} END {print s}'; }
HZ=$(getconf CLK_TCK)
measure() { # name path seconds -> "req/s cpu_us_per_req cs_per_req"
  local pid=${PID[$1]} t0 c0 out n
  t0=$(ticks "$pid"); c0=$(switches "$pid")
  out=$(taskset -c 1 wrk -t1 -c"$CONNS" -d"$3"s "http://127.0.0.1:${PORT[$1]}$2")
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  awk -v n="$n" -v s="$3" -v dt="$(( $(ticks "$pid") - t0 ))" -v dc="$(( $(switches "$pid") - c0 ))" -v hz="$HZ" \
      'BEGIN {printf "%.0f %.1f %.4f\n", n / s, dt / hz / n * 1e6, dc / n}'
}
for path in $PATHS; do for name in stock ours; do measure "$name" "$path" 10 >/dev/null; done; done   # JIT warm-up

echo "path connector round req/s cpu_us_per_req cs_per_req" > "$OUT/rounds.txt"
for r in $(seq 1 "$ROUNDS"); do
  for path in $PATHS; do for name in stock ours; do
    echo "$path $name $r $(measure "$name" "$path" "$DURATION")" | tee -a "$OUT/rounds.txt"
  done; done
done
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%s (%s-%s)", m, a[1], a[NR]}'; }
{
  echo "| path | connector | req/s | CPU us/req | context switches/req |"
  echo "|---|---|---|---|---|"
  for path in $PATHS; do for name in stock ours; do
    rows=$(awk -v p="$path" -v c="$name" '$1 == p && $2 == c' "$OUT/rounds.txt")
    echo "| \`$path\` | $name | $(echo "$rows" | awk '{print $4}' | median) | $(echo "$rows" | awk '{print $5}' | median) |" \
         "$(echo "$rows" | awk '{print $6}' | median) |"
  done; done
} | tee "$OUT/table.md"
