#!/usr/bin/env bash
# The demo behind `bin/spillway demo`: two sample backends, central (embedded database) with the
# demo edge registered and its resources stored, and an edge that takes everything it serves and
# its overload policy from central over ADS, all on 127.0.0.1, until Ctrl-C. Called by
# bin/spillway with JAVA_HOME and JAVA_FLAGS_STR set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="$ROOT/.spillway/demo"
mkdir -p "$STATE"
JAVA="$JAVA_HOME/bin/java"
read -r -a JAVA_FLAGS <<< "${JAVA_FLAGS_STR:-}"
read -r -a EDGE_JVM_FLAGS <<< "${EDGE_JVM_FLAGS_STR:-}"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() { # preferred port if free, else a free one from a high range
  local p="$1"
  if port_free "$p"; then echo "$p"; return; fi
  for _ in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 20000 ))
    if port_free "$p"; then echo "$p"; return; fi
  done
  echo "demo: no free port found" >&2; exit 1
}

EDGE_PORT=$(pick_port "${SPILLWAY_DEMO_PORT:-10000}")
ADMIN_PORT=$(pick_port 9901)
B1_PORT=$(pick_port 18081)
B2_PORT=$(pick_port 18082)
CENTRAL_PORT=$(pick_port "${SPILLWAY_DEMO_CENTRAL_PORT:-8080}")
XDS_PORT=$(pick_port 18000)

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 0' INT TERM

"$JAVA" "${JAVA_FLAGS[@]}" -cp "$ROOT/testkit/target/spillway-testkit-all.jar" io.spillway.testkit.SampleBackend \
  --port "$B1_PORT" --name backend-1 >"$STATE/backend-1.log" 2>&1 &
PIDS+=($!)
"$JAVA" "${JAVA_FLAGS[@]}" -cp "$ROOT/testkit/target/spillway-testkit-all.jar" io.spillway.testkit.SampleBackend \
  --port "$B2_PORT" --name backend-2 >"$STATE/backend-2.log" 2>&1 &
PIDS+=($!)

# Central with its embedded database in the demo directory. The admin token is generated once and
# kept next to the data, so a second demo run on the same data still works.
CENTRAL_DATA="$STATE/central-data"
TOKEN_FILE="$STATE/central-admin-token"
if [ ! -s "$TOKEN_FILE" ]; then
  rm -rf "$CENTRAL_DATA"
  (umask 077; printf 'spw_%s\n' "$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')" >"$TOKEN_FILE")
fi
ADMIN_TOKEN="$(cat "$TOKEN_FILE")"
SPILLWAY_ADMIN_TOKEN="$ADMIN_TOKEN" "$JAVA" "${JAVA_FLAGS[@]}" ${SPILLWAY_JAVA_OPTS:-} \
  -jar "$ROOT/central/target/spillway-central-all.jar" --data-dir "$CENTRAL_DATA" --http-port "$CENTRAL_PORT" \
  --xds-port "$XDS_PORT" >"$STATE/central.log" 2>&1 &
CENTRAL_PID=$!
PIDS+=("$CENTRAL_PID")

CENTRAL="http://127.0.0.1:$CENTRAL_PORT"
for _ in $(seq 1 300); do
  if curl -fsS "$CENTRAL/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$CENTRAL_PID" 2>/dev/null; then
    echo "demo: central exited; its log:" >&2; tail -n 40 "$STATE/central.log" >&2; exit 1
  fi
  sleep 0.2
done
curl -fsS "$CENTRAL/readyz" >/dev/null || { echo "demo: central not ready; see $STATE/central.log" >&2; exit 1; }

# An operator who may log in to the console: its password is generated once, like the token, and
# kept next to the data. The first-start administrator has an API token only, no password.
PASSWORD_FILE="$STATE/central-console-password"
NEW_PASSWORD=false
if [ ! -s "$PASSWORD_FILE" ]; then
  (umask 077; head -c 18 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' >"$PASSWORD_FILE")
  NEW_PASSWORD=true
fi
CONSOLE_PASSWORD="$(cat "$PASSWORD_FILE")"
CODE=$(curl -sS -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' -o "$STATE/operator.out" -w '%{http_code}' \
  -d "{\"name\": \"demo\", \"permissions\": [\"edges:manage\"], \"password\": \"$CONSOLE_PASSWORD\"}" "$CENTRAL/configuration/operators")
case "$CODE" in
  201) ;;
  409) [ "$NEW_PASSWORD" = false ] || echo "demo: the console operator demo exists from an earlier run whose password is lost; remove $STATE to start afresh" >&2 ;;
  *) echo "demo: creating the console operator answered $CODE: $(cat "$STATE/operator.out")" >&2; exit 1 ;;
esac

# Register the demo edge (its bootstrap node id) and take the credential it presents on the ADS
# stream; on a second run it is registered already, so its credential is replaced instead.
AUTH=(-H "Authorization: Bearer $ADMIN_TOKEN")
ANSWER=$(curl -sS "${AUTH[@]}" -H 'Content-Type: application/json' -d '{"id": "demo-edge", "labels": {"env": "demo"}}' \
  -w '\n%{http_code}' "$CENTRAL/configuration/edges")
if [ "${ANSWER##*$'\n'}" = "409" ]; then
  ANSWER=$(curl -sS "${AUTH[@]}" -X POST -w '\n%{http_code}' "$CENTRAL/configuration/edges/demo-edge/credential")
fi
case "${ANSWER##*$'\n'}" in
  200|201) ;;
  *) echo "demo: registering demo-edge in central answered: $ANSWER" >&2; exit 1 ;;
esac
EDGE_CREDENTIAL=$(printf '%s' "${ANSWER%$'\n'*}" | sed -n 's/.*"credential" *: *"\([^"]*\)".*/\1/p')
[ -n "$EDGE_CREDENTIAL" ] || { echo "demo: no credential in central's answer" >&2; exit 1; }

# What the edge serves comes from central: a listener, its routes, a cluster and its endpoints,
# stored through central's API (validated with the edge's own rules) and pushed over ADS.
put_resource() { # TYPE NAME, the YAML on stdin
  local code
  code=$(curl -sS "${AUTH[@]}" -X PUT -H 'Content-Type: application/yaml' --data-binary @- \
    -o "$STATE/put.out" -w '%{http_code}' "$CENTRAL/configuration/resources/$1/$2?edgeId=demo-edge")
  case "$code" in
    200|201) ;;
    *) echo "demo: storing $1/$2 in central answered $code: $(cat "$STATE/put.out")" >&2; exit 1 ;;
  esac
}
put_resource clusters backends <<YAML
name: backends
type: EDS
connect_timeout: 1s
lb_policy: ROUND_ROBIN
eds_cluster_config: { eds_config: { ads: {}, resource_api_version: V3 } }
YAML
put_resource endpoints backends <<YAML
cluster_name: backends
endpoints:
- lb_endpoints:
  - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: $B1_PORT } } }
  - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: $B2_PORT } } }
YAML
put_resource routes demo <<YAML
name: demo
virtual_hosts:
- name: demo
  domains: ["*"]
  routes:
  - match: { prefix: "/" }
    route:
      cluster: backends
      timeout: 5s
      retry_policy: { retry_on: "connect-failure,reset", num_retries: 2 }
YAML
put_resource listeners demo <<YAML
name: demo
address: { socket_address: { address: 127.0.0.1, port_value: $EDGE_PORT } }
filter_chains:
- filters:
  - name: envoy.filters.network.http_connection_manager
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
      stat_prefix: demo
      codec_type: AUTO
      rds: { route_config_name: demo, config_source: { ads: {}, resource_api_version: V3 } }
      http_filters:
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
YAML

cat >"$STATE/edge.yaml" <<YAML
# Written by bin/spillway demo: an Envoy v3 bootstrap, as an Envoy user would write it. Everything
# the edge serves (listener, routes, cluster, endpoints) and its overload policy come from central
# over ADS; the last configuration accepted is kept in .spillway/demo/edge-xds.
node: { id: demo-edge, cluster: demo }
admin:
  address: { socket_address: { address: 127.0.0.1, port_value: $ADMIN_PORT } }
dynamic_resources:
  ads_config:
    api_type: GRPC
    transport_api_version: V3
    grpc_services:
    - google_grpc: { target_uri: "127.0.0.1:$XDS_PORT", stat_prefix: central }
      initial_metadata: [{ key: authorization, value: "Bearer $EDGE_CREDENTIAL" }]
  cds_config: { ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s }
  lds_config: { ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s }
YAML

"$JAVA" "${JAVA_FLAGS[@]}" "${EDGE_JVM_FLAGS[@]}" ${SPILLWAY_JAVA_OPTS:-} -jar "$ROOT/edge/target/spillway-edge-all.jar" \
  -c "$STATE/edge.yaml" --concurrency 2 --drain-time-s 5 --xds-state-dir "$STATE/edge-xds" >"$STATE/edge.log" 2>&1 &
EDGE_PID=$!
PIDS+=("$EDGE_PID")

for _ in $(seq 1 300); do
  if curl -fsS "http://127.0.0.1:$ADMIN_PORT/ready" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$EDGE_PID" 2>/dev/null; then
    echo "demo: the edge exited; its log:" >&2; tail -n 40 "$STATE/edge.log" >&2; exit 1
  fi
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$ADMIN_PORT/ready" >/dev/null || { echo "demo: edge not ready; see $STATE/edge.log" >&2; exit 1; }

cat <<MSG

Spillway demo is running: an edge on 127.0.0.1:$EDGE_PORT in front of two sample backends.

  Through the edge (HTTP/1.1):   curl -i http://127.0.0.1:$EDGE_PORT/hello
  Through the edge (HTTP/2):     curl -i --http2-prior-knowledge http://127.0.0.1:$EDGE_PORT/hello
  Edge stats (Prometheus):       curl -s http://127.0.0.1:$ADMIN_PORT/stats/prometheus | grep upstream_rq_total
  Edge clusters:                 curl -s http://127.0.0.1:$ADMIN_PORT/clusters

Central (control plane, embedded database) on $CENTRAL, xDS on 127.0.0.1:$XDS_PORT; the edge
demo-edge is registered and takes its listener, routes, cluster, endpoints and overload policy
from central over ADS:

  console: $CENTRAL/  login demo / $CONSOLE_PASSWORD

  Read its policies:   curl -s -H "Authorization: Bearer $ADMIN_TOKEN" '$CENTRAL/configuration/edges/policies?edgeId=demo-edge'
  Change overload:     curl -s -X PATCH -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \\
                         -d '{"overload": {"inbound": {"mode": "enforce", "adaptive": {"maxLimit": 1536}}, "outbound": {"mode": "shadow"}}}' \\
                         '$CENTRAL/configuration/edges/policies?edgeId=demo-edge'
  Audit log:           curl -s -H "Authorization: Bearer $ADMIN_TOKEN" '$CENTRAL/configuration/audit?edgeId=demo-edge'
  API description:     curl -s $CENTRAL/openapi.yaml
  Watch it take effect: curl -s http://127.0.0.1:$ADMIN_PORT/overload | grep '"mode"'
                       curl -s http://127.0.0.1:$ADMIN_PORT/stats/prometheus | grep http_admission
  The edge's stream:   curl -s http://127.0.0.1:$ADMIN_PORT/xds     (central's view: '$CENTRAL/configuration/edges/demo-edge')
  What it was sent:    curl -s -H "Authorization: Bearer $ADMIN_TOKEN" '$CENTRAL/configuration/resources?edgeId=demo-edge'

Bootstrap: $STATE/edge.yaml   Logs: $STATE/*.log   Central data: $CENTRAL_DATA (admin token in $TOKEN_FILE,
console password in $PASSWORD_FILE)
Press Ctrl-C to stop.
MSG

wait "$EDGE_PID"
