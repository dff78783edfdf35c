#!/bin/bash
# Starts the two peers of the write-spin cell in SERVER_NS (env.sh) pinned to CPU 0, beside start-tomcat.sh's Tomcat:
# Jetty 12 (JettyMain, the samples' SizeServlet, 200 threads, 1 acceptor, 1 selector) on 8084 and nginx (one
# process, sendfile, a static body of KB kilobytes at /samples/size) on 8085. Needs
# `mvn -pl bench/experiments -am package -DskipTests` and Debian's nginx. Prints "JETTY_PID NGINX_PID".
set -e
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
. "$(dirname "$0")"/env.sh
DIR=${PEERS_DIR:-/tmp/writespin-peers}
KB=${KB:-100}
rm -rf "$DIR"; mkdir -p "$DIR"/www/samples "$DIR"/nginx
head -c $(( KB * 1024 )) /dev/urandom | base64 -w0 | head -c $(( KB * 1024 )) > "$DIR"/www/samples/size
(cd "$ROOT" && mvn -B -q -pl bench/experiments dependency:build-classpath -Dmdep.outputFile="$DIR"/cp.txt >/dev/null)
CP="$(cat "$DIR"/cp.txt):$ROOT/bench/experiments/target/classes:$ROOT/servlet-samples/target/classes"
"${IN_SERVER_NS[@]}" taskset -c 0 java ${JAVA_OPTS:--Xms1g -Xmx1g} -cp "$CP" \
    io.hybridconnector.experiments.JettyMain $HOST 8084 > "$DIR"/jetty.out 2>&1 < /dev/null &
JETTY=$!
cat > "$DIR"/nginx/nginx.conf <<CONF
daemon off; master_process off; worker_processes 1; pid $DIR/nginx/nginx.pid; error_log $DIR/nginx/error.log;
events { worker_connections 4096; }
http {
  sendfile on; tcp_nopush on; access_log off; keepalive_requests 100000000; default_type text/plain;
  client_body_temp_path $DIR/nginx; proxy_temp_path $DIR/nginx; fastcgi_temp_path $DIR/nginx;
  uwsgi_temp_path $DIR/nginx; scgi_temp_path $DIR/nginx;
  server { listen $HOST:8085 backlog=1024; root $DIR/www; }
}
CONF
"${IN_SERVER_NS[@]}" taskset -c 0 nginx -c "$DIR"/nginx/nginx.conf > "$DIR"/nginx.out 2>&1 < /dev/null &
NGINX=$!
for port in 8084 8085; do
  for i in $(seq 120); do
    sleep 0.5
    "${IN_CLIENT_NS[@]}" curl -sf -o /dev/null "http://$HOST:$port/samples/size?kb=$KB" && break
  done
done
echo "$JETTY $NGINX"
