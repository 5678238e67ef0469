#!/usr/bin/env bash
# bench/pressure-lb.sh — load-balancing policies side by side when one of five backends is slow
# or "hot" (docs/load-balancing.md#pressure-aware-balancing).
#
# Five CapacityBackend origins on 127.0.0.1 (SLOTS concurrent slots of SERVICE_MS each; each
# reports its busy share of slots in ORCA's endpoint-load-metrics as cpu_utilization, and its
# capacity as rps_fractional). Scenarios:
#   healthy  all five alike (the reference for "p99 with one slow backend vs all healthy")
#   shift    all alike; backend 5 turns 10x slow a third into the measured time and recovers at
#            two thirds: each backend's share of the requests sent to it, every 0.5 s, is drawn
#            as an SVG per policy (bench/results/pressure-lb-shift-<policy>-<timestamp>.svg)
#   slow  backend 5 has 10x the service time (a tenth of the capacity), reports honestly
#   hot   backend 5 reports cpu_utilization >= 0.9 and has 2x the service time
# For each scenario and policy an open-loop load (io.spillway.bench.overload.OpenLoopLoad: requests
# at fixed times, latency from the scheduled time) runs at LOAD_PCT % of the scenario's total
# capacity for DURATION seconds after WARM seconds of warm-up, which ramps the rate up in four equal
# steps (25, 50, 75, 100 %) for every proxy alike: a JVM hit cold with the full rate compiles while
# its backlog grows, and the timeouts and reconnections that follow measure the start, not the
# policy. Columns: the edge with ROUND_ROBIN, LEAST_REQUEST (two distinct choices),
# LEAST_REQUEST with selection_method FULL_SCAN, client-side weighted round robin (CSWRR) and the
# pressure policy; nginx least_conn; HAProxy leastconn. Cells: p50 / p99 / p99.9 of the 2xx (ms) and the error rate.
# Report to stdout and bench/results/pressure-lb-<timestamp>.md. Every process is stopped on exit.
#
# Environment (defaults in brackets):
#   SCENARIOS  healthy slow hot                                 [slow hot]
#   POLICIES   round_robin least_request least_request_full cswrr pressure nginx haproxy  [all seven]
#   DURATION   measured seconds per cell (1..300)               [30]
#   WARM       warm-up seconds per cell, ramping to the rate (0 or 4..60)  [8]
#   LOAD_PCT   open-loop rate as % of total capacity (1..150)   [70]
#   SLOTS      slots per backend                                [8]
#   SERVICE_MS service time of a normal backend                 [10]
#   TIMEOUT_MS a request without an answer by then is an error  [2000]
#   KEEP_DIR   1 = keep the work dir                             [0]
#   INSTALL    0 = never apt-get a missing nginx/haproxy         [1]
set -euo pipefail
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
LIB=$SCRIPT_DIR/lib
BENCH_NAME=pressure-lb
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$LIB/common.sh"

SCENARIOS=${SCENARIOS:-"slow hot"}
POLICIES=${POLICIES:-"round_robin least_request least_request_full cswrr pressure nginx haproxy"}
DURATION=${DURATION:-30}
WARM=${WARM:-8}
LOAD_PCT=${LOAD_PCT:-70}
SLOTS=${SLOTS:-8}
SERVICE_MS=${SERVICE_MS:-10}
TIMEOUT_MS=${TIMEOUT_MS:-2000}
KEEP_DIR=${KEEP_DIR:-0}
INSTALL=${INSTALL:-1}
REBUILD=${REBUILD:-0}
RESULTS_DIR=${RESULTS_DIR:-$SCRIPT_DIR/results}
EDGE_JAR=$REPO_ROOT/edge/target/spillway-edge-all.jar
BENCH_JAR=$REPO_ROOT/bench/target/spillway-jmh.jar

for v in DURATION WARM LOAD_PCT SLOTS SERVICE_MS TIMEOUT_MS KEEP_DIR INSTALL REBUILD; do
  is_uint "${!v}" || die "$v must be a non-negative integer (got '${!v}')"
done
(( DURATION >= 1 && DURATION <= 300 )) || die "DURATION must be 1..300"
(( WARM == 0 || (WARM >= 4 && WARM <= 60) )) || die "WARM must be 0 or 4..60"
(( LOAD_PCT >= 1 && LOAD_PCT <= 150 )) || die "LOAD_PCT must be 1..150"
(( SLOTS >= 1 && SERVICE_MS >= 1 )) || die "SLOTS and SERVICE_MS must be positive"
for s in $SCENARIOS; do case $s in healthy|slow|hot|shift) ;; *) die "unknown scenario '$s' (healthy, slow, hot, shift)";; esac; done
for p in $POLICIES; do
  case $p in round_robin|least_request|least_request_full|cswrr|pressure|nginx|haproxy) ;; *) die "unknown policy '$p'";; esac
done

need=()
[[ " $POLICIES " == *" nginx "* ]] && ! command -v nginx >/dev/null && need+=(nginx)
[[ " $POLICIES " == *" haproxy "* ]] && ! command -v haproxy >/dev/null && need+=(haproxy)
command -v curl >/dev/null || need+=(curl)
command -v python3 >/dev/null || need+=(python3)
if (( ${#need[@]} )); then
  (( INSTALL && EUID == 0 )) || die "missing: ${need[*]}"
  apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2
fi

JDK=$(find_jdk) || die "need a JDK >= 21 (set JAVA_HOME)"
JAVA=$JDK/bin/java
build_if_stale "$EDGE_JAR" "$BENCH_JAR"

install_cleanup 5

DIR=$(mktemp -d /tmp/pressure-lb.XXXXXX)
chmod 755 "$DIR"
mkdir -p "$DIR/tmp"
RESULTS=$DIR/results.tsv
: >"$RESULTS"
init_port_range
stop_last() {  # PID: stop one process we started and drop it from PIDS
  stop_pid "$1" 5
  local keep=() p
  for p in "${PIDS[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  PIDS=("${keep[@]}")
}
TOOL_JVM=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms64m -Xmx256m)

# ------------------------------------------------------------------ configs
edge_policy() {  # POLICY: the cluster's balancing fields
  case $1 in
    round_robin) echo "lb_policy: ROUND_ROBIN" ;;
    least_request) echo "lb_policy: LEAST_REQUEST" ;;
    least_request_full) cat <<EOF
load_balancing_policy:
        policies:
        - typed_extension_config:
            name: envoy.load_balancing_policies.least_request
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest
              selection_method: FULL_SCAN
EOF
    ;;
    cswrr) cat <<EOF
load_balancing_policy:
        policies:
        - typed_extension_config:
            name: envoy.load_balancing_policies.client_side_weighted_round_robin
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin
              blackout_period: 2s
EOF
    ;;
    pressure) cat <<EOF
load_balancing_policy:
        policies:
        - typed_extension_config:
            name: spillway.load_balancing_policies.pressure
            typed_config:
              "@type": type.googleapis.com/spillway.edge.lb.v1.Pressure
              blackout_period: 2s
              capacity: $SLOTS
EOF
    ;;
  esac
}

lb_edge_yaml() {  # POLICY PORT ADMIN: the edge bootstrap of one balancing policy (several hosts, high breakers, the policy)
  local endpoints="" p
  for p in "${BACKEND_PORTS[@]}"; do
    endpoints+="
          - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: $p } } }"
  done
  edge_yaml "$3" "$2" '              - match: { prefix: "/" }
                route: { cluster: backends, timeout: 5s }' "  - name: backends
    type: STATIC
    connect_timeout: 1s
    circuit_breakers: { thresholds: [ { max_connections: 10000, max_pending_requests: 10000, max_requests: 10000 } ] }
    $(edge_policy "$1")
    load_assignment:
      cluster_name: backends
      endpoints:
      - lb_endpoints:$endpoints"
}

nginx_conf() {  # PORT
  local servers="" p
  for p in "${BACKEND_PORTS[@]}"; do servers+="        server 127.0.0.1:$p;"$'\n'; done
  mkdir -p "$DIR/tmp/nginx"
  cat <<EOF
worker_processes 2;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $DIR/tmp/nginx/body;
    proxy_temp_path $DIR/tmp/nginx/proxy;
    fastcgi_temp_path $DIR/tmp/nginx/fastcgi;
    uwsgi_temp_path $DIR/tmp/nginx/uwsgi;
    scgi_temp_path $DIR/tmp/nginx/scgi;
    upstream backends {
        least_conn;
$servers        keepalive 256;
    }
    server {
        listen 127.0.0.1:$1 backlog=4096;
        location / {
            proxy_pass http://backends;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
EOF
}

haproxy_cfg() {  # PORT
  local i=0 p
  cat <<EOF
global
    nbthread 2
    maxconn 4000
    pidfile $DIR/haproxy.pid
defaults
    mode http
    option http-keep-alive
    http-reuse always
    timeout connect 1s
    timeout client 30s
    timeout server 5s
frontend fe
    bind 127.0.0.1:$1
    default_backend backends
backend backends
    balance leastconn
EOF
  for p in "${BACKEND_PORTS[@]}"; do echo "    server b$((i++)) 127.0.0.1:$p"; done
}

# ------------------------------------------------------------------ runs
BACKEND_PIDS=()
start_backends() {  # SCENARIO
  BACKEND_PORTS=()
  BACKEND_PIDS=()
  local i ms cpu
  for i in 1 2 3 4 5; do
    ms=$SERVICE_MS cpu=0
    if (( i == 5 )); then
      case $1 in slow) ms=$((SERVICE_MS * 10)) ;; hot) ms=$((SERVICE_MS * 2)) cpu=0.9 ;; esac
    fi
    local port; port=$(pick_port); PICKED+="$port "
    start_bg "backend$i" "$JAVA" "${TOOL_JVM[@]}" -cp "$BENCH_JAR" io.spillway.bench.overload.CapacityBackend \
      --port "$port" --slots "$SLOTS" --service-ms "$ms" --orca-cpu "$cpu"
    wait_http "backend$i" "$LAST_PID" "http://127.0.0.1:$port/__stats" 30
    BACKEND_PORTS+=("$port")
    BACKEND_PIDS+=("$LAST_PID")
  done
}

capacity() {  # SCENARIO: total requests/s the five backends serve
  local per=$((SLOTS * 1000 / SERVICE_MS))
  case $1 in healthy|shift) echo $((5 * per)) ;; slow) echo $((4 * per + per / 10)) ;; hot) echo $((4 * per + per / 2)) ;; esac
}

run_cell() {  # SCENARIO POLICY RATE
  local scenario=$1 policy=$2 rate=$3 port admin pid url
  port=$(pick_port); PICKED+="$port "
  case $policy in
    nginx)
      nginx_conf "$port" >"$DIR/nginx.conf"
      start_bg nginx nginx -c "$DIR/nginx.conf" -g 'daemon off;' ;;
    haproxy)
      haproxy_cfg "$port" >"$DIR/haproxy.cfg"
      start_bg haproxy haproxy -f "$DIR/haproxy.cfg" -db ;;
    *)
      admin=$(pick_port); PICKED+="$admin "
      lb_edge_yaml "$policy" "$port" "$admin" >"$DIR/edge-$policy.yaml"
      start_bg "edge-$policy" "$JAVA" -Xms256m -Xmx512m -jar "$EDGE_JAR" -c "$DIR/edge-$policy.yaml" --concurrency 2
      wait_http "edge-$policy" "$LAST_PID" "http://127.0.0.1:$admin/ready" 60 ;;
  esac
  pid=$LAST_PID
  url="http://127.0.0.1:$port"
  for _ in $(seq 1 80); do curl -s -o /dev/null --max-time 1 "$url/" && break; sleep 0.25; done
  local out="$DIR/$scenario-$policy.json" total=$((WARM + DURATION)) streams=()
  local step
  if (( WARM > 0 )); then
    for step in 1 2 3 4; do
      streams+=(--stream "warm$step,/w,$((rate * step / 4)),$(awk -v w="$WARM" -v s="$step" 'BEGIN { print w * (s - 1) / 4 }'),$(awk -v w="$WARM" -v s="$step" 'BEGIN { print w * s / 4 }')")
    done
  fi
  streams+=(--stream "measured,/m,$rate,$WARM,$total")
  local shift_pids=()
  if [[ $scenario == shift ]]; then
    local slow_port=${BACKEND_PORTS[4]} samples="$DIR/shift-$policy.tsv"
    : >"$samples"
    (  # each backend's served count every 0.5 s; bounded by the cell's length
      for ((i = 0; i <= total * 2 + 2; i++)); do
        now=$(date +%s.%N)
        for p in "${BACKEND_PORTS[@]}"; do
          printf '%s\t%s\t%s\n' "$now" "$p" "$(curl -s --max-time 1 "http://127.0.0.1:$p/__stats" \
            | sed -n 's/.*"received":\([0-9]*\).*/\1/p')"
        done >>"$samples"
        sleep 0.5
      done ) &
    shift_pids+=($!)
    ( sleep "$(awk -v w="$WARM" -v d="$DURATION" 'BEGIN { print w + d / 3 }')"
      curl -s --max-time 2 "http://127.0.0.1:$slow_port/__service?ms=$((SERVICE_MS * 10))" >/dev/null
      sleep "$(awk -v d="$DURATION" 'BEGIN { print d / 3 }')"
      curl -s --max-time 2 "http://127.0.0.1:$slow_port/__service?ms=$SERVICE_MS" >/dev/null ) &
    shift_pids+=($!)
  fi
  timeout --kill-after=5 "$((total + 30))" "$JAVA" "${TOOL_JVM[@]}" -cp "$BENCH_JAR" \
    io.spillway.bench.overload.OpenLoopLoad --target "$url" "${streams[@]}" \
    --timeout-ms "$TIMEOUT_MS" --slo-ms "$TIMEOUT_MS" \
    --label "$scenario/$policy" --out "$out" >"$DIR/load-$scenario-$policy.log" 2>&1 || log "load for $scenario/$policy failed"
  local sp
  for sp in "${shift_pids[@]}"; do wait "$sp" 2>/dev/null || true; done
  if [[ $scenario == shift ]]; then
    mkdir -p "$RESULTS_DIR"
    python3 - "$DIR/shift-$policy.tsv" "${BACKEND_PORTS[4]}" "$policy" "$WARM" "$DURATION" \
      >"$RESULTS_DIR/pressure-lb-shift-$policy-$(date +%Y%m%d-%H%M%S).svg" <<'PY'
import sys
path, slow, policy, warm, duration = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
served = {}
for line in open(path):
    t, port, n = line.rstrip("\n").split("\t")
    if n:
        served.setdefault(float(t), {})[port] = int(n)
ticks = sorted(served)
t0 = ticks[0] if ticks else 0.0
ports = sorted({p for t in served.values() for p in t}, key=lambda p: (p == slow, p))
shares = []  # (seconds since the load started, {port: share of the requests sent in the interval})
j = 0
for b in ticks:  # over about 1 s: from the last sample at least 1 s older
    while j + 1 < len(ticks) and ticks[j + 1] <= b - 1.0:
        j += 1
    a = ticks[j]
    if b - a < 0.9:
        continue
    d = {p: served[b].get(p, 0) - served[a].get(p, 0) for p in ports}
    total = sum(d.values())
    if total > 0:
        shares.append((b - t0, {p: d[p] / total for p in ports}))
W, H, L, R, T, B = 640, 260, 48, 150, 28, 34
end = warm + duration
x = lambda s: L + (s / end) * (W - L - R)
y = lambda v: T + (1 - v) * (H - T - B)
colors = ["#1f6fb2", "#2f8f5b", "#6b4fa0", "#c27400", "#b42318"]
out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">',
       f'<text x="{L}" y="16" font-size="13">{policy}: share of the requests sent to each backend, 1 s intervals</text>']
lo, hi = warm + duration / 3, warm + 2 * duration / 3
out.append(f'<rect x="{x(lo):.1f}" y="{T}" width="{x(hi) - x(lo):.1f}" height="{H - T - B}" fill="#fdecea"/>')
out.append(f'<text x="{(x(lo) + x(hi)) / 2:.1f}" y="{T + 12}" text-anchor="middle" fill="#b42318">backend 5 at 10x service time</text>')
for v in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
    out.append(f'<line x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#d5dce5" stroke-width="0.5"/>')
    out.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#5b6673">{int(v * 100)} %</text>')
for s in range(0, int(end) + 1, 5):
    out.append(f'<text x="{x(s):.1f}" y="{H - 14}" text-anchor="middle" fill="#5b6673">{s} s</text>')
out.append(f'<line x1="{x(warm):.1f}" x2="{x(warm):.1f}" y1="{T}" y2="{H - B}" stroke="#5b6673" stroke-dasharray="3 2"/>')
out.append(f'<text x="{x(warm) + 3:.1f}" y="{H - B - 4}" fill="#5b6673">measured from here</text>')
for k, p in enumerate(ports):
    pts = " ".join(f"{x(s):.1f},{y(sh[p]):.1f}" for s, sh in shares)
    name = "backend 5 (turns slow)" if p == slow else f"backend {k + 1}"
    out.append(f'<polyline fill="none" stroke="{colors[k % 5]}" stroke-width="1.6" points="{pts}"/>')
    out.append(f'<line x1="{W - R + 10}" x2="{W - R + 28}" y1="{T + 14 + k * 16}" y2="{T + 14 + k * 16}" stroke="{colors[k % 5]}" stroke-width="2"/>')
    out.append(f'<text x="{W - R + 32}" y="{T + 18 + k * 16}">{name}</text>')
out.append("</svg>")
print("\n".join(out))
PY
  fi
  if [[ $policy == pressure && -n ${admin:-} ]]; then
    curl -s --max-time 2 "http://127.0.0.1:$admin/clusters" | grep pressure_ >"$DIR/$scenario-pressure-clusters.txt" || true
  fi
  stop_last "$pid"
  python3 - "$out" "$scenario" "$policy" >>"$RESULTS" <<'PY'
import json, sys
path, scenario, policy = sys.argv[1:4]
try:
    doc = json.load(open(path))
except Exception:
    print(f"{scenario}\t{policy}\t-\t-\t-\t-"); sys.exit(0)
s = [x for x in doc["streams"] if x["name"] == "measured"][0]
err = 1 - s["success_ratio"]
f = lambda v: "-" if v is None else f"{float(v):.1f}"
print(f"{scenario}\t{policy}\t{f(s['ok_p50_ms'])}\t{f(s['ok_p99_ms'])}\t{f(s['ok_p999_ms'])}\t{err*100:.2f}%")
PY
}

for scenario in $SCENARIOS; do
  start_backends "$scenario"
  cap=$(capacity "$scenario")
  rate=$((cap * LOAD_PCT / 100))
  log "scenario $scenario: capacity $cap req/s, open-loop rate $rate req/s for ${DURATION}s (+${WARM}s warm-up)"
  for policy in $POLICIES; do
    run_cell "$scenario" "$policy" "$rate"
    sleep 1
  done
  for pid in "${BACKEND_PIDS[@]}"; do stop_last "$pid"; done
done

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/pressure-lb-$(date +%Y%m%d-%H%M%S).md
python3 - "$RESULTS" "$SCENARIOS" "$POLICIES" "$DURATION" "$LOAD_PCT" "$SLOTS" "$SERVICE_MS" >"$REPORT" <<'PY'
import sys
path, scenarios, policies, duration, pct, slots, ms = sys.argv[1:8]
rows = {}
for line in open(path):
    sc, po, p50, p99, p999, err = line.rstrip("\n").split("\t")
    rows[(sc, po)] = f"{p50} / {p99} / {p999} ms, {err}"
names = {"round_robin": "ROUND_ROBIN", "least_request": "LEAST_REQUEST",
         "least_request_full": "LEAST_REQUEST FULL_SCAN", "cswrr": "CSWRR",
         "pressure": "pressure", "nginx": "nginx least_conn", "haproxy": "HAProxy leastconn"}
pols = policies.split()
print(f"# pressure-lb: {duration} s per cell at {pct} % of capacity; backends {slots} slots x {ms} ms\n")
print("p50 / p99 / p99.9 of the 2xx, then the error rate (non-2xx, timeouts, errors).\n")
print("| scenario | " + " | ".join(names[p] for p in pols) + " |")
print("|---|" + "---|" * len(pols))
for sc in scenarios.split():
    print(f"| {sc} | " + " | ".join(rows.get((sc, p), "-") for p in pols) + " |")
PY
cat "$REPORT"
log "report: $REPORT"
FAILED=0
