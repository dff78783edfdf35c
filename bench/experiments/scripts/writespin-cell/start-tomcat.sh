#!/bin/bash
# Lays out a CATALINA_BASE (BASE, default /tmp/writespin-base) on the Tomcat 10.1.59 distribution that
# `mvn -pl bench/main -am package -DskipTests` unpacks, with three connectors on one Tomcat - stock NIO on 8081,
# ours on 8082, ours with writeStrategy="spin" on 8083, ours with threadModel="sync" on 8086 - and the servlet
# samples; starts it in SERVER_NS (env.sh) pinned to CPU 0. Prints the Tomcat JVM's pid.
set -e
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
. "$(dirname "$0")"/env.sh
HOME_DIR=${TOMCAT_HOME:-$(ls -d "$ROOT"/bench/harness/target/dist/apache-tomcat-10.1.* | head -1)}
BASE=${BASE:-/tmp/writespin-base}
rm -rf "$BASE"
mkdir -p "$BASE"/{conf,lib,logs,temp,webapps,work}
cp "$HOME_DIR"/conf/* "$BASE"/conf/
cp "$ROOT"/connector/target/hybrid-connector-*[0-9T].jar "$BASE"/lib/
cp "$ROOT"/servlet-samples/target/samples.war "$BASE"/webapps/
cat > "$BASE"/conf/server.xml <<XML
<Server port="-1" shutdown="SHUTDOWN"><Service name="Catalina">
  <Connector port="8081" protocol="org.apache.coyote.http11.Http11NioProtocol" maxKeepAliveRequests="-1" acceptCount="1024"/>
  <Connector port="8082" protocol="io.hybridconnector.HybridHttp11Protocol" maxKeepAliveRequests="-1" acceptCount="1024"/>
  <Connector port="8083" protocol="io.hybridconnector.HybridHttp11Protocol" writeStrategy="spin" maxKeepAliveRequests="-1" acceptCount="1024"/>
  <Connector port="8086" protocol="io.hybridconnector.HybridHttp11Protocol" threadModel="sync" maxKeepAliveRequests="-1" acceptCount="1024"/>
  <Engine name="Catalina" defaultHost="localhost"><Host name="localhost" appBase="webapps" autoDeploy="false"/></Engine>
</Service></Server>
XML
export CATALINA_HOME="$HOME_DIR" CATALINA_BASE="$BASE" JAVA_OPTS="${JAVA_OPTS:--Xms1g -Xmx1g}"
"${IN_SERVER_NS[@]}" taskset -c 0 bash "$HOME_DIR"/bin/catalina.sh run > "$BASE"/logs/console.out 2>&1 &
for i in $(seq 120); do
  sleep 0.5
  "${IN_CLIENT_NS[@]}" curl -sf -o /dev/null "http://$HOST:8082/samples/size?kb=0.1" && break
done
pgrep -f "catalina.base=$BASE" | head -1
