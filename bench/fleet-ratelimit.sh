#!/usr/bin/env bash
# bench/fleet-ratelimit.sh — the cost of a fleet-wide rate limit's check: the edge's own Redis
# counter (io.spillway.edge.redis.RedisFleetCounter: one Lettuce connection, one GCRA script per
# check) driven open-loop at each rate in RATES against a redis-server of this run's own on
# 127.0.0.1 (never the machine's shared one), by io.spillway.bench.fleet.FleetCheckLoad: latency
# from each check's scheduled instant to its answer (what an enforced request waits), Redis round
# trips per check (Redis's INFO commandstats), answers lost. Every check is admitted — the costly
# case; a refused key value is refused on the edge without a round trip.
# Then (EDGE=1) the same through a real edge: central (H2 in the work dir) gives a packaged edge
# (2 workers, --redis-uri to that Redis) its policy; an open-loop generator
# (io.spillway.bench.overload.OpenLoopLoad) sends EDGE_RATE req/s through it to a backend that
# answers at once, with no limit, an edge-scoped limit and a fleet-wide one (enforce, never over):
# the difference in the 200s' latency is what the check adds to a request.
#
# Environment (defaults in brackets):
#   RATES       checks per second, one run each        [1000 10000]
#   DURATION    measured seconds per run               [20]
#   WARMUP      seconds of warm-up before each run     [5]
#   KEYS        distinct key values                    [1000]
#   TIMEOUT_MS  the counter's timeout (--redis-timeout) [20]
#   RUNS        repetitions (medians in the report)    [1]
#   EDGE        1 = also measure through a real edge   [1]
#   EDGE_RATE   requests per second through the edge   [10000]
#   EDGE_SECONDS measured seconds per edge scenario    [20]
#   REBUILD     1 = build even if the jars exist       [0]
#   KEEP_DIR    1 = keep the work dir                  [0]
#   RESULTS_DIR where the report goes                  [bench/results]
set -euo pipefail
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
LIB=$SCRIPT_DIR/lib
BENCH_NAME=fleet-ratelimit
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$LIB/common.sh"

RATES=${RATES:-1000 10000}
DURATION=${DURATION:-20}
WARMUP=${WARMUP:-5}
KEYS=${KEYS:-1000}
TIMEOUT_MS=${TIMEOUT_MS:-20}
RUNS=${RUNS:-1}
EDGE=${EDGE:-1}
EDGE_RATE=${EDGE_RATE:-10000}
EDGE_SECONDS=${EDGE_SECONDS:-20}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}
for v in DURATION WARMUP KEYS TIMEOUT_MS RUNS EDGE EDGE_RATE EDGE_SECONDS; do is_uint "${!v}" || die "$v must be a whole number"; done
for r in $RATES; do is_uint "$r" && (( r >= 1 && r <= 200000 )) || die "RATES: $r is not 1..200000"; done
(( DURATION >= 1 && DURATION <= 600 )) || die "DURATION must be 1..600"
(( EDGE_SECONDS >= 1 && EDGE_SECONDS <= 600 && EDGE_RATE >= 1 && EDGE_RATE <= 50000 )) \
  || die "EDGE_SECONDS must be 1..600 and EDGE_RATE 1..50000"

command -v redis-server >/dev/null || die "needs redis-server (apt-get install redis-server)"
JDK=$(find_jdk) || die "need a JDK >= 21 (set JAVA_HOME)"
JAVA=$JDK/bin/java
EDGE_JAR=$REPO_ROOT/edge/target/spillway-edge-all.jar
BENCH_JAR=$REPO_ROOT/bench/target/spillway-jmh.jar
CENTRAL_JAR=$REPO_ROOT/central/target/spillway-central-all.jar
R=$REPO_ROOT
if (( EDGE )) && stale "$CENTRAL_JAR" "$R/central/src/main" "$R/edge/src/main" "$R/policy/src/main"; then
  REBUILD=1
fi
build_if_stale "$EDGE_JAR" "$BENCH_JAR"
(( EDGE )) && { [[ -f $CENTRAL_JAR ]] || die "missing $CENTRAL_JAR after the build"; }

install_cleanup 5
DIR=$(mktemp -d /tmp/fleet-ratelimit.XXXXXX)
init_port_range
REDIS_PORT=$(pick_port)
start_bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$DIR"
for _ in $(seq 100); do
  [[ $(redis-cli -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]] && break
  sleep 0.1
done
[[ $(redis-cli -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]] || die "redis-server did not start (see $DIR/redis.log)"

RESULTS=$DIR/results.jsonl
: >"$RESULTS"
for run in $(seq "$RUNS"); do
  for rate in $RATES; do
    log "run $run: $rate checks/s for ${DURATION}s (warm-up ${WARMUP}s)"
    timeout $(( DURATION + WARMUP + 60 )) "$JAVA" -XX:+UseSerialGC -Xms256m -Xmx512m -cp "$BENCH_JAR" \
      io.spillway.bench.fleet.FleetCheckLoad --redis-uri "redis://127.0.0.1:$REDIS_PORT" --rate "$rate" \
      --duration "$DURATION" --warmup "$WARMUP" --keys "$KEYS" --timeout-ms "$TIMEOUT_MS" | tee -a "$RESULTS" >&2
  done
done

# ------------------------------------------------------------------ through a real edge
EDGE_RESULTS=$DIR/edge.jsonl
: >"$EDGE_RESULTS"
if (( EDGE )); then
  TOKEN=fleet-ratelimit-bench-token
  BACKEND_PORT=$(pick_port); PICKED+="$BACKEND_PORT "
  HTTP_PORT=$(pick_port); PICKED+="$HTTP_PORT "
  XDS_PORT=$(pick_port); PICKED+="$XDS_PORT "
  ADMIN_PORT=$(pick_port); PICKED+="$ADMIN_PORT "
  PROXY_PORT=$(pick_port); PICKED+="$PROXY_PORT "
  TOOL_JVM=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms256m)
  start_bg backend "$JAVA" "${TOOL_JVM[@]}" -Xmx512m -cp "$BENCH_JAR" io.spillway.bench.overload.CapacityBackend \
    --port "$BACKEND_PORT" --slots 4096 --service-ms 0.01
  wait_http backend "$LAST_PID" "http://127.0.0.1:$BACKEND_PORT/__stats" 30
  SPILLWAY_ADMIN_TOKEN=$TOKEN start_bg central "$JAVA" -Xmx512m -jar "$CENTRAL_JAR" --data-dir "$DIR/data" \
    --http-address 127.0.0.1 --http-port "$HTTP_PORT" --xds-address 127.0.0.1 --xds-port "$XDS_PORT"
  wait_http central "$LAST_PID" "http://127.0.0.1:$HTTP_PORT/readyz" 90
  C=http://127.0.0.1:$HTTP_PORT
  api() { curl -sS -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "$@"; }
  CREDENTIAL=$(api -X POST "$C/configuration/edges" -d '{"id": "bench-edge", "labels": {}}' \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["credential"])') || die "cannot register the edge"
  cat >"$DIR/edge.yaml" <<YAML
admin:
  address: {socket_address: {address: 127.0.0.1, port_value: $ADMIN_PORT}}
node: {id: bench-edge, cluster: bench}
dynamic_resources:
  ads_config:
    api_type: GRPC
    transport_api_version: V3
    grpc_services:
    - google_grpc: {target_uri: "127.0.0.1:$XDS_PORT", stat_prefix: central}
      initial_metadata: [{key: authorization, value: "Bearer $CREDENTIAL"}]
  cds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s}
  lds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s}
static_resources:
  listeners:
  - name: main
    address: {socket_address: {address: 127.0.0.1, port_value: $PROXY_PORT}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: main
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes: [{name: api, match: {prefix: "/"}, route: {cluster: backend}}]
          http_filters:
          - name: envoy.filters.http.router
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
  clusters:
  - name: backend
    type: STATIC
    load_assignment:
      cluster_name: backend
      endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: $BACKEND_PORT}}}}]}]
YAML
  start_bg edge "$JAVA" -jar "$EDGE_JAR" -c "$DIR/edge.yaml" --concurrency 2 \
    --redis-uri "redis://127.0.0.1:$REDIS_PORT" --redis-timeout "$TIMEOUT_MS"
  EDGE_PID=$LAST_PID
  wait_http edge "$EDGE_PID" "http://127.0.0.1:$ADMIN_PORT/ready" 90
  # policy SCOPE: none (no rateLimits), or one enforced limit keyed by the route that never refuses
  policy() {
    local body
    if [[ $1 == none ]]; then body='{"rateLimits": null}'; else
      body='{"rateLimits": {"limits": [{"name": "bench", "key": "route", "rate": 1000000, "burst": 1000000, "mode": "enforce", "scope": "'$1'"}]}}'
    fi
    api -o /dev/null -w '%{http_code}' -X PATCH "$C/configuration/edges/policies?edgeId=bench-edge" -d "$body" | grep -q 200 \
      || die "PATCH $1 refused"
    for _ in $(seq 200); do
      local seen; seen=$(curl -s "http://127.0.0.1:$ADMIN_PORT/ratelimits")
      if [[ $1 == none && $seen != *'"bench"'* ]] || [[ $1 != none && $seen == *'"scope" : "'$1'"'* ]]; then return 0; fi
      sleep 0.05
    done
    die "the edge never showed the $1 policy"
  }
  gen() {  # gen LABEL SECONDS
    timeout --kill-after=5 $(( $2 + 40 )) "$JAVA" "${TOOL_JVM[@]}" -Xmx1g -cp "$BENCH_JAR" \
      io.spillway.bench.overload.OpenLoopLoad --target "http://127.0.0.1:$PROXY_PORT" \
      --stream "$1,/api,$EDGE_RATE,0,$2" --timeout-ms 2000 --slo-ms 1000 --max-conns 2000 --threads 2 --label "$1"
  }
  policy none
  log "edge warm-up: 10 s at $EDGE_RATE req/s"
  gen warm 10 >"$DIR/edge-warm.json" 2>"$DIR/edge-warm.err" || die "warm-up failed (see $DIR/edge-warm.err)"
  for run in $(seq "$RUNS"); do
    for scope in none edge fleet; do
      policy "$scope"
      before=$(redis-cli -p "$REDIS_PORT" info commandstats | tr -d '\r' | awk -F'[=,]' '/^cmdstat_eval(sha)?:/{n+=$2} END{print n+0}')
      log "run $run: through the edge, $scope, $EDGE_RATE req/s for ${EDGE_SECONDS}s"
      gen "$scope" "$EDGE_SECONDS" >"$DIR/edge-$scope-$run.json" 2>"$DIR/edge-$scope-$run.err" \
        || die "generator failed (see $DIR/edge-$scope-$run.err)"
      after=$(redis-cli -p "$REDIS_PORT" info commandstats | tr -d '\r' | awk -F'[=,]' '/^cmdstat_eval(sha)?:/{n+=$2} END{print n+0}')
      python3 - "$DIR/edge-$scope-$run.json" "$scope" "$(( after - before ))" >>"$EDGE_RESULTS" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["streams"][0]
print(json.dumps({"scope": sys.argv[2], "round_trips": int(sys.argv[3]), "scheduled": s["scheduled"], "ok": s["ok"],
                  "ok_rps": s["ok_rps"], "p50": s["ok_p50_ms"], "p90": s["ok_p90_ms"], "p99": s["ok_p99_ms"],
                  "p999": s["ok_p999_ms"], "other": s["other_status"] + s["timeout"] + s["error"] + s["refused_503"]}))
PY
      tail -n 1 "$EDGE_RESULTS" >&2
    done
  done
fi

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/fleet-ratelimit-$(date +%Y%m%d-%H%M%S).md
python3 - "$RESULTS" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(redis-server --version | cut -d' ' -f3)" \
  "$EDGE_RESULTS" "$EDGE_RATE" >"$REPORT" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
edge = [json.loads(l) for l in open(sys.argv[5]) if l.strip()]
print("# Fleet-wide rate limit check: Redis cost\n")
print(f"{sys.argv[2]} cores, load average {sys.argv[3]}, Redis {sys.argv[4]}; medians over runs.\n")
print("| checks/s | achieved | p50 µs | p90 µs | p99 µs | p99.9 µs | max µs | round trips / check | timeouts | errors | lost |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for rate in sorted({r["rate"] for r in rows}):
    rs = [r for r in rows if r["rate"] == rate]
    med = lambda f: statistics.median(f(r) for r in rs)
    print(f"| {rate} | {med(lambda r: r['achieved_rate']):.0f} | {med(lambda r: r['latency_us']['p50']):.0f} "
          f"| {med(lambda r: r['latency_us']['p90']):.0f} | {med(lambda r: r['latency_us']['p99']):.0f} "
          f"| {med(lambda r: r['latency_us']['p99.9']):.0f} | {med(lambda r: r['latency_us']['max']):.0f} "
          f"| {med(lambda r: r['round_trips_per_check']):.3f} | {med(lambda r: r['outcomes'].get('timeout', 0)):.0f} "
          f"| {med(lambda r: r['outcomes'].get('error', 0)):.0f} | {med(lambda r: r['lost']):.0f} |")
if edge:
    print(f"\n## Through the edge at {sys.argv[6]} req/s (200s' latency, ms)\n")
    print("| policy | 200/s | p50 | p90 | p99 | p99.9 | not 200 | Redis round trips / request |")
    print("|---|---|---|---|---|---|---|---|")
    for scope in ["none", "edge", "fleet"]:
        rs = [r for r in edge if r["scope"] == scope]
        if not rs:
            continue
        med = lambda f: statistics.median(f(r) for r in rs)
        num = lambda v: float(v) if v not in (None, "null") else float("nan")
        print(f"| {scope} | {med(lambda r: r['ok_rps']):.0f} | {med(lambda r: num(r['p50'])):.2f} | {med(lambda r: num(r['p90'])):.2f} "
              f"| {med(lambda r: num(r['p99'])):.2f} | {med(lambda r: num(r['p999'])):.2f} | {med(lambda r: r['other']):.0f} "
              f"| {med(lambda r: r['round_trips'] / max(1, r['scheduled'])):.3f} |")
PY
cat "$REPORT"
log "report: $REPORT"
FAILED=0
