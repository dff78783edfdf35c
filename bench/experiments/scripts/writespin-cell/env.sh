# Sourced by the cell's scripts: where the servers and the client run, and what they ask for.
#   SERVER_NS, CLIENT_NS  network namespaces (setup-netns.sh's tcsx and tccx); set both empty for loopback
#   HOST                  the servers' address as the client sees it (10.88.0.1; 127.0.0.1 on loopback)
#   EP                    the samples' endpoint: size (a fresh random body per request, the papers' workload) or
#                         fixed (a body made once, so that CPU per request is the connector's alone)
SERVER_NS=${SERVER_NS-tcsx}
CLIENT_NS=${CLIENT_NS-tccx}
HOST=${HOST:-10.88.0.1}
EP=${EP:-size}
# Command prefixes, arrays so that "${IN_SERVER_NS[@]}" java ... & leaves the JVM's own pid in $!.
IN_SERVER_NS=(); if [ -n "$SERVER_NS" ]; then IN_SERVER_NS=(ip netns exec "$SERVER_NS"); fi
IN_CLIENT_NS=(); if [ -n "$CLIENT_NS" ]; then IN_CLIENT_NS=(ip netns exec "$CLIENT_NS"); fi
