#!/usr/bin/env bash
# bench/overload.sh — the `bench/overload` scenario: a backend of known capacity C
# behind the Spillway edge (admission enforce / off / shadow), nginx and HAProxy, loaded by a
# truly open-loop generator (io.spillway.bench.overload.OpenLoopLoad; latency from each
# request's scheduled send time, so no coordinated omission).
#
# Scenarios (SCENARIOS, any of):
#   levels  for each target in TARGETS: a fresh proxy, WARM s at 0.5 C, then PHASE s at each
#           multiple of C in MULTS (GAP s apart); goodput, p50/p99 of successes, refusal p99,
#           CPU of the proxy per request; the edge's limit/in-flight/executor lag every 50 ms.
#   step    edge enforce: WARM at 0.5 C, STEP_PRE s at 1x, STEP_HIGH s at 3x, STEP_POST s at 1x;
#           the limit and admitted concurrency every 50 ms; time to within +-10 % of steady state.
#   tiers   edge enforce and edge shadow (fresh each): 3x C of `proxy`, then the login storm
#           (STORM_START x C of `start` over STORM_PROXY x C of `proxy`, plus small
#           `continuation` and `exempt` streams); per-tier success, and shadow's would-refuse
#           rate next to enforce's refusals (shadow fidelity).
#   refusal edge enforce, fresh, pinned with taskset to REFUSAL_EDGE_CPUS, generator and backend to
#           REFUSAL_LOAD_CPUS: REFUSAL_WARM s at REFUSAL_LOW x C then REFUSAL_WARM s at REFUSAL_HIGH x C
#           (both paths compiled: on one core a fresh edge's JIT would otherwise be the measured CPU),
#           GAP+2 s at 1 req/s (the edge's background CPU, shown only), PHASE s at REFUSAL_LOW x C
#           (CPU per proxied request = edge CPU / served), PHASE s at REFUSAL_HIGH x C (CPU per
#           refusal = (edge CPU - served x CPU per proxied request) / refused); refusal p50/p99 from
#           the scheduled send time (and, to tell the generator's lateness apart, from the write).
#   slowpeer  edge with two clusters (`fast` = the backend, `slow` = a second CapacityBackend) on
#           / and /slow, outbound guard enforce with the breaker on: SLOWPEER_RATE x C to each
#           route; SLOWPEER_PRE s normal, SLOWPEER_SLOW s with the slow backend's service time
#           x SLOWPEER_FACTOR (its /__service knob, on the generator's clock), SLOWPEER_POST s
#           normal again; fast p50/p99 per phase, slow success and p99, the guard's breaker
#           state and refusals per peer every 50 ms from /stats/prometheus.
# Everything listens on 127.0.0.1; every process started here is stopped on exit; every load
# step is bounded by its schedule and by `timeout`.
#
# Environment (defaults in brackets):
#   SCENARIOS   levels step tiers refusal slowpeer        [all five]
#   TARGETS     edge-enforce edge-off nginx haproxy       [all four]
#   MULTS       multiples of C for `levels`               [0.8 1 2 3 10]
#   SLOTS / SERVICE_MS  backend capacity: C = SLOTS*1000/SERVICE_MS req/s   [20 / 50 -> C = 400]
#   PHASE       seconds per load level                    [10]
#   PROXY_WARM  seconds of a throw-away warm-up run at 0.5 C after a proxy starts [8]
#   WARM        seconds at 0.5 C at the start of each measured generator run (not scored) [5]
#   GAP         idle seconds between levels               [3]
#   TIMEOUT_MS  client timeout, from the scheduled time   [2000]
#   SLO_MS      a success counts as goodput if within it  [1000]
#   MAX_CONNS   generator connection cap                  [6000]
#   HAPROXY_MAXCONN / HAPROXY_QUEUE_MS  server maxconn and `timeout queue`  [$SLOTS / 500]
#   STORM_START / STORM_PROXY / STORM_CONT / STORM_EXEMPT  storm rates in C   [3 / 0.5 / 0.1 / 0.05]
#   STEP_PRE / STEP_HIGH / STEP_POST  step phases (s)     [5 / 15 / 8]
#   REFUSAL_EDGE_CPUS / REFUSAL_LOAD_CPUS  taskset CPU lists for `refusal` (edge / generator
#               and backend)                              [1 / 0]
#   REFUSAL_LOW / REFUSAL_HIGH  the two `refusal` levels in C [0.8 / 10]
#   REFUSAL_WARM    seconds of each of the two `refusal` warm-up phases [30]
#   REFUSAL_SAMPLE_MS  how often `refusal` polls the edge's /overload (each poll is edge CPU) [1000]
#   SLOWPEER_PRE / SLOWPEER_SLOW / SLOWPEER_POST  `slowpeer` phases (s)  [10 / 10 / 15]
#   SLOWPEER_RATE   load per route in C                   [0.5]
#   SLOWPEER_FACTOR slow backend's service time multiplier in the slow phase [10]
#   SLOWPEER_TIMEOUT_MS  outbound requestTimeoutMillis    [250]
#   SLOWPEER_OPEN_S / SLOWPEER_WINDOW_S / SLOWPEER_MIN_CALLS / SLOWPEER_PROBES
#               breaker openSeconds / windowSeconds / minCalls / probeCalls  [1 / 2 / 20 / 3]
#   SLOWPEER_INBOUND  inbound admission mode in `slowpeer`  [off]
#   RUNS        repetitions of all scenarios (medians in the report) [1]
#   EDGE_JAVA_OPTS  the edge's JVM options                [bin/spillway's edge defaults]
#   REBUILD     1 = build even if the jars exist          [0]
#   INSTALL     0 = never apt-get                          [1]
#   KEEP_DIR    1 = keep the work dir                     [0]
#   RESULTS_DIR where the report goes                     [bench/results]
set -euo pipefail
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
LIB=$SCRIPT_DIR/lib
BENCH_NAME=overload
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$LIB/common.sh"

SCENARIOS=${SCENARIOS:-"levels step tiers refusal slowpeer"}
TARGETS=${TARGETS:-"edge-enforce edge-off nginx haproxy"}
MULTS=${MULTS:-"0.8 1 2 3 10"}
SLOTS=${SLOTS:-20}
SERVICE_MS=${SERVICE_MS:-50}
PHASE=${PHASE:-10}
WARM=${WARM:-5}
PROXY_WARM=${PROXY_WARM:-8}
GAP=${GAP:-3}
TIMEOUT_MS=${TIMEOUT_MS:-2000}
SLO_MS=${SLO_MS:-1000}
MAX_CONNS=${MAX_CONNS:-6000}
HAPROXY_MAXCONN=${HAPROXY_MAXCONN:-$SLOTS}
HAPROXY_QUEUE_MS=${HAPROXY_QUEUE_MS:-500}
STORM_START=${STORM_START:-3}
STORM_PROXY=${STORM_PROXY:-0.5}
STORM_CONT=${STORM_CONT:-0.1}
STORM_EXEMPT=${STORM_EXEMPT:-0.05}
STEP_PRE=${STEP_PRE:-5}
STEP_HIGH=${STEP_HIGH:-15}
STEP_POST=${STEP_POST:-8}
REFUSAL_EDGE_CPUS=${REFUSAL_EDGE_CPUS:-1}
REFUSAL_LOAD_CPUS=${REFUSAL_LOAD_CPUS:-0}
REFUSAL_LOW=${REFUSAL_LOW:-0.8}
REFUSAL_HIGH=${REFUSAL_HIGH:-10}
REFUSAL_WARM=${REFUSAL_WARM:-30}
REFUSAL_SAMPLE_MS=${REFUSAL_SAMPLE_MS:-1000}
SLOWPEER_PRE=${SLOWPEER_PRE:-10}
SLOWPEER_SLOW=${SLOWPEER_SLOW:-10}
SLOWPEER_POST=${SLOWPEER_POST:-15}
SLOWPEER_RATE=${SLOWPEER_RATE:-0.5}
SLOWPEER_FACTOR=${SLOWPEER_FACTOR:-10}
SLOWPEER_TIMEOUT_MS=${SLOWPEER_TIMEOUT_MS:-250}
SLOWPEER_OPEN_S=${SLOWPEER_OPEN_S:-1}
SLOWPEER_WINDOW_S=${SLOWPEER_WINDOW_S:-2}
SLOWPEER_MIN_CALLS=${SLOWPEER_MIN_CALLS:-20}
SLOWPEER_PROBES=${SLOWPEER_PROBES:-3}
SLOWPEER_INBOUND=${SLOWPEER_INBOUND:-off}
RUNS=${RUNS:-1}
EDGE_JAVA_OPTS_GIVEN=${EDGE_JAVA_OPTS+set}
EDGE_JAVA_OPTS=${EDGE_JAVA_OPTS:-}
EDGE_CONCURRENCY=2  # the edge's --concurrency (refusal: as many as its pinned CPUs)
REBUILD=${REBUILD:-0}
INSTALL=${INSTALL:-1}
KEEP_DIR=${KEEP_DIR:-0}
RESULTS_DIR=${RESULTS_DIR:-$SCRIPT_DIR/results}
EDGE_JAR=$REPO_ROOT/edge/target/spillway-edge-all.jar
BENCH_JAR=$REPO_ROOT/bench/target/spillway-jmh.jar

for v in SLOTS PHASE WARM PROXY_WARM GAP TIMEOUT_MS SLO_MS MAX_CONNS HAPROXY_MAXCONN HAPROXY_QUEUE_MS STEP_PRE STEP_HIGH STEP_POST RUNS REBUILD INSTALL KEEP_DIR REFUSAL_WARM REFUSAL_SAMPLE_MS \
         SLOWPEER_PRE SLOWPEER_SLOW SLOWPEER_POST SLOWPEER_TIMEOUT_MS SLOWPEER_OPEN_S SLOWPEER_WINDOW_S SLOWPEER_MIN_CALLS SLOWPEER_PROBES; do
  is_uint "${!v}" || die "$v must be a non-negative integer (got '${!v}')"
done
(( PHASE >= 1 && PHASE <= 120 )) || die "PHASE must be 1..120"
(( RUNS >= 1 && RUNS <= 5 )) || die "RUNS must be 1..5"
for m in $MULTS; do [[ $m =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "MULTS: '$m' is not a number"; done
for t in $TARGETS; do case $t in edge-enforce|edge-off|nginx|haproxy) ;; *) die "unknown target '$t'";; esac; done
for s in $SCENARIOS; do case $s in levels|step|tiers|refusal|slowpeer) ;; *) die "unknown scenario '$s'";; esac; done
for m in "$REFUSAL_LOW" "$REFUSAL_HIGH" "$SLOWPEER_RATE" "$SLOWPEER_FACTOR"; do
  [[ $m =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "REFUSAL_LOW/HIGH, SLOWPEER_RATE/FACTOR: '$m' is not a number"
done
for c in "$REFUSAL_EDGE_CPUS" "$REFUSAL_LOAD_CPUS"; do
  [[ $c =~ ^[0-9]+([,-][0-9]+)*$ ]] || die "REFUSAL_EDGE_CPUS / REFUSAL_LOAD_CPUS: '$c' is not a CPU list"
done
case $SLOWPEER_INBOUND in off|shadow|enforce) ;; *) die "SLOWPEER_INBOUND must be off, shadow or enforce";; esac
(( SLOWPEER_OPEN_S >= 1 && SLOWPEER_WINDOW_S >= 1 && SLOWPEER_MIN_CALLS >= 1 && SLOWPEER_PROBES >= 1 && SLOWPEER_TIMEOUT_MS >= 1 )) \
  || die "SLOWPEER_OPEN_S, _WINDOW_S, _MIN_CALLS, _PROBES and _TIMEOUT_MS must be >= 1"
want_s() { [[ " $SCENARIOS " == *" $1 "* ]]; }
CAP=$(python3 -c "print(round($SLOTS*1000/$SERVICE_MS, 3))")
rate() { python3 -c "print(round($1*$CAP, 3))"; }

# ------------------------------------------------------------------ tools
need_pkgs=()
want_t() { [[ " $TARGETS " == *" $1 "* ]]; }
if [[ " $SCENARIOS " == *" levels "* ]]; then
  want_t nginx && ! command -v nginx >/dev/null && need_pkgs+=(nginx)
  want_t haproxy && ! command -v haproxy >/dev/null && need_pkgs+=(haproxy)
fi
command -v curl >/dev/null || need_pkgs+=(curl)
want_s refusal && ! command -v taskset >/dev/null && need_pkgs+=(util-linux)
command -v python3 >/dev/null || need_pkgs+=(python3)
if (( ${#need_pkgs[@]} )); then
  (( INSTALL )) || die "missing: ${need_pkgs[*]} (INSTALL=0)"
  (( EUID == 0 )) || die "missing: ${need_pkgs[*]}; run as root or install them"
  before=" $(pgrep -d ' ' -x 'nginx|haproxy' || true) "
  log "installing: ${need_pkgs[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >&2
  for pid in $(pgrep -x 'nginx|haproxy' || true); do   # stop a service the package install started
    [[ $before == *" $pid "* ]] || kill -TERM "$pid" 2>/dev/null || true
  done
fi

if want_s refusal; then
  for c in "$REFUSAL_EDGE_CPUS" "$REFUSAL_LOAD_CPUS"; do
    taskset -c "$c" true 2>/dev/null || die "refusal: cannot pin to CPUs '$c' on this machine ($(nproc) CPUs); set REFUSAL_EDGE_CPUS / REFUSAL_LOAD_CPUS"
  done
fi
JDK=$(find_jdk) || die "need a JDK >= 21 (set JAVA_HOME)"
JAVA=$JDK/bin/java
[[ -n $EDGE_JAVA_OPTS_GIVEN ]] || launcher_edge_opts "$JDK"
build_if_stale "$EDGE_JAR" "$BENCH_JAR"

# ------------------------------------------------------------------ processes
install_cleanup 5

DIR=$(mktemp -d /tmp/overload.XXXXXX)
chmod 755 "$DIR"
mkdir -p "$DIR/tmp"
RESULTS=$DIR/results.jsonl
: >"$RESULTS"

init_port_range
BACKEND_PORT=$(pick_port); PICKED+="$BACKEND_PORT "
PROXY_PORT=$(pick_port); PICKED+="$PROXY_PORT "
ADMIN_PORT=$(pick_port); PICKED+="$ADMIN_PORT "
SLOW_PORT=$(pick_port); PICKED+="$SLOW_PORT "


# The backend: SLOTS concurrent slots of SERVICE_MS each, FIFO queue; C = SLOTS / SERVICE_MS.
# The generator and the backend run C1-only with the serial GC: less JIT and GC CPU taken from
# the proxy on these few shared cores, and they are warm within a second or two.
TOOL_JVM=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms256m)
start_bg backend "$JAVA" "${TOOL_JVM[@]}" -Xmx512m -cp "$BENCH_JAR" io.spillway.bench.overload.CapacityBackend \
  --port "$BACKEND_PORT" --slots "$SLOTS" --service-ms "$SERVICE_MS"
BACKEND_PID=$LAST_PID
wait_http backend "$BACKEND_PID" "http://127.0.0.1:$BACKEND_PORT/__stats" 30
log "backend capacity C = $CAP req/s ($SLOTS slots x $SERVICE_MS ms)"
SLOW_PID=""
if want_s slowpeer; then
  # The `slow` cluster's backend: the same capacity; slowpeer turns its service time up and back
  # through its /__service knob.
  start_bg slowbackend "$JAVA" "${TOOL_JVM[@]}" -Xmx512m -cp "$BENCH_JAR" io.spillway.bench.overload.CapacityBackend \
    --port "$SLOW_PORT" --slots "$SLOTS" --service-ms "$SERVICE_MS"
  SLOW_PID=$LAST_PID
  wait_http slowbackend "$SLOW_PID" "http://127.0.0.1:$SLOW_PORT/__stats" 30
fi

# ------------------------------------------------------------------ configs
edge_yaml "$ADMIN_PORT" "$PROXY_PORT" '              - match: { prefix: "/login" }
                route: { cluster: backend }
                metadata: { filter_metadata: { spillway.admission: { tier: start } } }
              - match: { prefix: "/cont" }
                route: { cluster: backend }
                metadata: { filter_metadata: { spillway.admission: { tier: continuation } } }
              - match: { prefix: "/exempt" }
                route: { cluster: backend }
                metadata: { filter_metadata: { spillway.admission: { tier: exempt } } }
              - match: { prefix: "/" }
                route: { cluster: backend }' "$(static_cluster backend "$BACKEND_PORT")" >"$DIR/edge.yaml"
# slowpeer: two routes to two clusters, so one slow peer's guard can be watched next to a healthy one.
edge_yaml "$ADMIN_PORT" "$PROXY_PORT" '              - match: { prefix: "/slow" }
                route: { cluster: slow }
              - match: { prefix: "/" }
                route: { cluster: fast }' "$(static_cluster fast "$BACKEND_PORT"; static_cluster slow "$SLOW_PORT")" \
  >"$DIR/edge-slowpeer.yaml"
# The outbound guard in enforce with the breaker on; a call slower than requestTimeoutMillis is a
# 504 and a peer failure, so the slow peer's breaker opens. The edge starts with the breaker off
# (policy-slowpeer.json), so that a stall while a fresh edge warms up cannot open it, and the
# scenario swaps the breaker-on policy into the watched file before it measures.
for breaker in false true; do
  printf '{"inbound": {"mode": "%s"}, "outbound": {"mode": "enforce", "requestTimeoutMillis": %d, "breaker": {"enabled": %s, "failureRatio": 0.5, "minCalls": %d, "windowSeconds": %d, "openSeconds": %d, "probeCalls": %d}}}\n' \
    "$SLOWPEER_INBOUND" "$SLOWPEER_TIMEOUT_MS" "$breaker" "$SLOWPEER_MIN_CALLS" "$SLOWPEER_WINDOW_S" "$SLOWPEER_OPEN_S" "$SLOWPEER_PROBES"
done | { read -r off; read -r on; echo "$off" >"$DIR/policy-slowpeer.json"; echo "$on" >"$DIR/policy-slowpeer-breaker.json"; }
for mode in enforce off shadow; do
  # Inbound admission in MODE with the built-in defaults; the outbound guard off, so only
  # admission differs between the edge rows.
  printf '{"inbound": {"mode": "%s"}, "outbound": {"mode": "off"}}\n' "$mode" >"$DIR/policy-$mode.json"
done

cat >"$DIR/nginx.conf" <<EOF
worker_processes 2;
worker_rlimit_nofile 20000;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log error;
events { worker_connections 16000; }
http {
    access_log off;
    client_body_temp_path $DIR/tmp/body; proxy_temp_path $DIR/tmp/proxy;
    fastcgi_temp_path $DIR/tmp/fcgi; uwsgi_temp_path $DIR/tmp/uwsgi; scgi_temp_path $DIR/tmp/scgi;
    keepalive_timeout 120s;
    keepalive_requests 100000000;
    upstream backend {
        server 127.0.0.1:$BACKEND_PORT;
        keepalive 64;
        keepalive_requests 100000000;
    }
    server {
        listen 127.0.0.1:$PROXY_PORT backlog=8192;
        location / {
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
EOF

cat >"$DIR/haproxy.cfg" <<EOF
global
    nbthread 2
    maxconn 9000
    pidfile $DIR/haproxy.pid

defaults
    mode http
    option http-keep-alive
    option abortonclose
    http-reuse always
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout http-keep-alive 120s
    timeout http-request 10s
    timeout queue ${HAPROXY_QUEUE_MS}ms

frontend fe
    bind 127.0.0.1:$PROXY_PORT backlog 8192
    maxconn 9000
    default_backend backend

backend backend
    # At most HAPROXY_MAXCONN requests at the backend; the excess waits in HAProxy's queue
    # for up to 'timeout queue', then gets 503.
    server b1 127.0.0.1:$BACKEND_PORT maxconn $HAPROXY_MAXCONN
EOF

# ------------------------------------------------------------------ helpers
PROXY_PID=""
CPU_PIDS=""
PROXY_PIN=()   # e.g. (taskset -c 1): how the proxy is started (refusal pins it)
GEN_PIN=()     # the same for the generator runs
GEN_EXTRA=()   # extra generator options of a scenario (slowpeer: --at, --guard-sample)
SAMPLE_MS=50   # how often the edge's /overload is polled (refusal: less often, the polls cost edge CPU)
start_proxy() {  # TARGET
  case $1 in
    edge-enforce|edge-off|edge-shadow|edge-slowpeer)
      local mode=${1#edge-} conf=$DIR/edge.yaml
      [[ $1 == edge-slowpeer ]] && conf=$DIR/edge-slowpeer.yaml
      # shellcheck disable=SC2086
      start_bg "$1" "${PROXY_PIN[@]}" "$JAVA" $EDGE_JAVA_OPTS -jar "$EDGE_JAR" -c "$conf" --concurrency "$EDGE_CONCURRENCY" \
        --overload-policy "$DIR/policy-$mode.json" --log-level warning
      PROXY_PID=$LAST_PID
      wait_http "$1" "$PROXY_PID" "http://127.0.0.1:$ADMIN_PORT/ready" 90
      CPU_PIDS=$PROXY_PID ;;
    nginx)
      nginx -t -q -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/nginx-error.log" >&2 || die "nginx config invalid"
      start_bg nginx nginx -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/nginx-error.log" -g 'daemon off;'
      PROXY_PID=$LAST_PID
      wait_http nginx "$PROXY_PID" "http://127.0.0.1:$PROXY_PORT/" 20
      CPU_PIDS=$(echo "$PROXY_PID" $(pgrep -P "$PROXY_PID") | tr ' ' ',') ;;
    haproxy)
      haproxy -c -q -f "$DIR/haproxy.cfg" >&2 || die "haproxy config invalid"
      start_bg haproxy haproxy -db -f "$DIR/haproxy.cfg"
      PROXY_PID=$LAST_PID
      wait_http haproxy "$PROXY_PID" "http://127.0.0.1:$PROXY_PORT/" 20
      CPU_PIDS=$PROXY_PID ;;
  esac
  warm_proxy
}
stop_proxy() {
  local target=$1 rss oom
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PROXY_PID/status" 2>/dev/null || echo 0)
  if kill -0 "$PROXY_PID" 2>/dev/null; then alive=1; else alive=0; fi
  oom=$(grep -c 'OutOfMemoryError' "$DIR/$target.log" 2>/dev/null || true)
  stop_pid "$PROXY_PID"
  mv "$DIR/$target.log" "$DIR/$target-r$RUN-$SCEN.log" 2>/dev/null || true
  printf '{"kind":"proxy_end","run":%d,"scenario":"%s","target":"%s","rss_kb":%s,"alive_at_end":%d,"oom_lines":%s}\n' \
    "$RUN" "$SCEN" "$target" "${rss:-0}" "$alive" "${oom:-0}" >>"$RESULTS"
}
flush_backend() {  # answer whatever a previous phase left queued at the backend, and wait until idle
  local i s port
  for port in $BACKEND_PORT ${SLOW_PID:+$SLOW_PORT}; do
    curl -s --max-time 5 "http://127.0.0.1:$port/__flush" >/dev/null || true
    for i in $(seq 1 40); do
      s=$(curl -s --max-time 2 "http://127.0.0.1:$port/__stats" || true)
      [[ $s == *'"in_service":0,"queued":0'* ]] && break
      sleep 0.25
    done
    [[ $s == *'"in_service":0,"queued":0'* ]] || log "backend :$port not idle after 10 s: $s"
  done
}
# warm_proxy: PROXY_WARM s at 0.5 C in a throw-away generator run, so a freshly started edge has
# compiled its hot paths (and nginx/HAProxy get the same treatment) before anything is measured.
warm_proxy() {
  (( PROXY_WARM > 0 )) || return 0
  log "run $RUN $SCEN $TARGET: proxy warm-up ${PROXY_WARM}s at 0.5 C"
  local streams=(--stream "proxywarm,/api/warm,$(rate 0.5),0,$PROXY_WARM")
  [[ $TARGET == edge-slowpeer ]] && streams+=(--stream "proxywarmslow,/slow/warm,$(rate 0.5),0,$PROXY_WARM")
  timeout --kill-after=5 $(( PROXY_WARM + TIMEOUT_MS / 1000 + 40 )) "${GEN_PIN[@]}" "$JAVA" "${TOOL_JVM[@]}" -Xmx1g -cp "$BENCH_JAR" \
    io.spillway.bench.overload.OpenLoopLoad --target "http://127.0.0.1:$PROXY_PORT" \
    "${streams[@]}" --timeout-ms "$TIMEOUT_MS" --label proxywarm \
    >"$DIR/warm-$TARGET-$SCEN-r$RUN.json" 2>&1 || log "warm-up run failed (see $DIR/warm-$TARGET-$SCEN-r$RUN.json)"
  flush_backend
}
# gen NAME TOTAL_SECONDS STREAM... : one generator run; JSON summary appended to RESULTS
gen() {
  local name=$1 secs=$2; shift 2
  local args=() s sample=()
  for s in "$@"; do args+=(--stream "$s"); done
  if [[ $TARGET == edge-* ]]; then
    sample=(--sample "http://127.0.0.1:$ADMIN_PORT/overload" --prom "http://127.0.0.1:$ADMIN_PORT/stats/prometheus"
            --sample-ms "$SAMPLE_MS" --sample-out "$DIR/samples-$name.tsv")
  fi
  log "run $RUN $SCEN $TARGET: $name (${secs}s)"
  timeout --kill-after=5 $(( secs + TIMEOUT_MS / 1000 + 40 )) "${GEN_PIN[@]}" "$JAVA" "${TOOL_JVM[@]}" -Xmx1g -cp "$BENCH_JAR" \
    io.spillway.bench.overload.OpenLoopLoad --target "http://127.0.0.1:$PROXY_PORT" "${args[@]}" \
    --timeout-ms "$TIMEOUT_MS" --slo-ms "$SLO_MS" --max-conns "$MAX_CONNS" --threads 2 --cpu-pids "$CPU_PIDS" \
    --series "$DIR/series-$name.tsv" "${sample[@]}" "${GEN_EXTRA[@]}" --label "$name" \
    >"$DIR/gen-$name.json" 2>"$DIR/gen-$name.err" || { tail -n 20 "$DIR/gen-$name.err" >&2; die "generator failed ($name)"; }
  python3 "$LIB/overload_report.py" record "$DIR/gen-$name.json" --run "$RUN" --scenario "$SCEN" --target "$TARGET" \
    --capacity "$CAP" ${sample:+--samples "$DIR/samples-$name.tsv"} \
    ${GEN_EXTRA:+--guard-samples "$DIR/guard-$name.tsv"} >>"$RESULTS"
  tail -n 1 "$RESULTS" | python3 "$LIB/overload_report.py" line >&2
}

# ------------------------------------------------------------------ scenarios
LOADAVG_START=$(cut -d' ' -f1-3 /proc/loadavg)
for (( RUN = 1; RUN <= RUNS; RUN++ )); do
  if [[ " $SCENARIOS " == *" levels "* ]]; then
    SCEN=levels
    read -r -a TL <<<"$TARGETS"
    n=${#TL[@]}
    for (( i = 0; i < n; i++ )); do
      TARGET=${TL[$(( (i + RUN - 1) % n ))]}   # rotate the order every run
      flush_backend
      start_proxy "$TARGET"
      # One generator run per target: warm-up, then each level in turn, GAP s apart.
      streams=("warm,/api/w,$(rate 0.5),0,$WARM")
      t=$WARM
      for m in $MULTS; do
        t=$(( t + GAP ))
        streams+=("x$m,/api/x$m,$(rate "$m"),$t,$(( t + PHASE ))")
        t=$(( t + PHASE ))
      done
      gen "levels-$TARGET-r$RUN" "$t" "${streams[@]}"
      stop_proxy "$TARGET"
    done
  fi
  if [[ " $SCENARIOS " == *" step "* ]]; then
    SCEN=step TARGET=edge-enforce
    flush_backend
    start_proxy "$TARGET"
    a=$((WARM + 1)); b=$((a + STEP_PRE)); c=$((b + STEP_HIGH)); d=$((c + STEP_POST))
    gen "step-r$RUN" "$d" "warm,/api/w,$(rate 0.5),0,$WARM" "pre1x,/api/pre,$(rate 1),$a,$b" \
      "step3x,/api/step,$(rate 3),$b,$c" "post1x,/api/post,$(rate 1),$c,$d"
    stop_proxy "$TARGET"
  fi
  if [[ " $SCENARIOS " == *" tiers "* ]]; then
    SCEN=tiers
    for TARGET in edge-enforce edge-shadow; do
      flush_backend
      start_proxy "$TARGET"
      a=$((WARM + GAP)); b=$((a + PHASE)); c=$((b + GAP + 2)); d=$((c + PHASE))
      gen "tiers-$TARGET-r$RUN" "$d" "warm,/api/w,$(rate 0.5),0,$WARM" "proxy3x,/api/p3,$(rate 3),$a,$b" \
        "storm-start,/login/s,$(rate "$STORM_START"),$c,$d" "storm-proxy,/api/s,$(rate "$STORM_PROXY"),$c,$d" \
        "storm-continuation,/cont/s,$(rate "$STORM_CONT"),$c,$d" "storm-exempt,/exempt/s,$(rate "$STORM_EXEMPT"),$c,$d"
      stop_proxy "$TARGET"
    done
  fi
  if want_s refusal; then
    SCEN=refusal TARGET=edge-enforce
    flush_backend
    # The edge alone on REFUSAL_EDGE_CPUS; the generator (and the backend, re-pinned for the
    # scenario) on REFUSAL_LOAD_CPUS, so the generator's CPU use neither steals from the edge nor
    # shows up in the edge's measured CPU.
    backend_cpus=$(taskset -c -p "$BACKEND_PID" | awk -F': ' '{ print $2 }')
    taskset -a -c -p "$REFUSAL_LOAD_CPUS" "$BACKEND_PID" >/dev/null
    PROXY_PIN=(taskset -c "$REFUSAL_EDGE_CPUS") GEN_PIN=(taskset -c "$REFUSAL_LOAD_CPUS") SAMPLE_MS=$REFUSAL_SAMPLE_MS
    # One worker per CPU it has, as Envoy's --concurrency defaults to: two workers time-sharing one
    # CPU make each wait for the other's time slice, and that wait is not the refusal's cost.
    EDGE_CONCURRENCY=$(taskset -c "$REFUSAL_EDGE_CPUS" nproc)
    start_proxy "$TARGET"
    w=$((2 * REFUSAL_WARM)); i=$((w + GAP)); a=$((i + GAP + 2)); b=$((a + PHASE)); c=$((b + GAP)); d=$((c + PHASE))
    gen "refusal-r$RUN" "$d" "warm,/api/w,$(rate "$REFUSAL_LOW"),0,$REFUSAL_WARM" \
      "warmhigh,/api/wh,$(rate "$REFUSAL_HIGH"),$REFUSAL_WARM,$w" \
      "idle,/api/idle,1,$i,$a" "low,/api/low,$(rate "$REFUSAL_LOW"),$a,$b" "high,/api/high,$(rate "$REFUSAL_HIGH"),$c,$d"
    stop_proxy "$TARGET"
    PROXY_PIN=() GEN_PIN=() SAMPLE_MS=50 EDGE_CONCURRENCY=2
    taskset -a -c -p "$backend_cpus" "$BACKEND_PID" >/dev/null
  fi
  if want_s slowpeer; then
    SCEN=slowpeer TARGET=edge-slowpeer
    flush_backend
    cp "$DIR/policy-slowpeer.json" "$DIR/policy-slowpeer-warm.json"
    start_proxy "$TARGET"
    # Warmed: now the breaker on (the edge re-reads the policy file within a second).
    before_reloads=$(curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/stats" | awk -F': ' '$1 == "policy_file.reload_success" { print $2 }')
    cp "$DIR/policy-slowpeer-breaker.json" "$DIR/policy-slowpeer.json.new" && mv "$DIR/policy-slowpeer.json.new" "$DIR/policy-slowpeer.json"
    for i in $(seq 1 20); do
      n=$(curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/stats" | awk -F': ' '$1 == "policy_file.reload_success" { print $2 }')
      [[ ${n:-0} -gt ${before_reloads:-0} ]] && break
      sleep 0.25
    done
    [[ ${n:-0} -gt ${before_reloads:-0} ]] || die "slowpeer: the edge did not reload the breaker-on policy (policy_file.reload_success ${n:-?})"
    flush_backend
    a=$((WARM + GAP)); b=$((a + SLOWPEER_PRE)); c=$((b + SLOWPEER_SLOW)); d=$((c + SLOWPEER_POST))
    slow_ms=$(python3 -c "print($SERVICE_MS*$SLOWPEER_FACTOR)")
    # The slow phase is the slow backend's service time x FACTOR, switched on the generator's clock.
    GEN_EXTRA=(--guard-sample "http://127.0.0.1:$ADMIN_PORT/stats/prometheus" --guard-ms 50 --guard-out "$DIR/guard-slowpeer-r$RUN.tsv"
               --at "$b,http://127.0.0.1:$SLOW_PORT/__service?ms=$slow_ms" --at "$c,http://127.0.0.1:$SLOW_PORT/__service?ms=$SERVICE_MS")
    r=$(rate "$SLOWPEER_RATE")
    gen "slowpeer-r$RUN" "$d" "warm,/api/w,$r,0,$WARM" "warmslow,/slow/w,$r,0,$WARM" \
      "fast-before,/api/before,$r,$a,$b" "slow-before,/slow/before,$r,$a,$b" \
      "fast-during,/api/during,$r,$b,$c" "slow-during,/slow/during,$r,$b,$c" \
      "fast-after,/api/after,$r,$c,$d" "slow-after,/slow/after,$r,$c,$d"
    GEN_EXTRA=()
    curl -s --max-time 5 "http://127.0.0.1:$SLOW_PORT/__service?ms=$SERVICE_MS" >/dev/null || true
    stop_proxy "$TARGET"
    cp "$DIR/policy-slowpeer-warm.json" "$DIR/policy-slowpeer.json"   # the next run's edge starts with the breaker off again
  fi
done

# ------------------------------------------------------------------ report
TS=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/overload-$TS.md
{
  printf 'machine\t%s cores, %s, load average at start %s, at end %s\n' "$(nproc)" \
    "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$LOADAVG_START" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf 'backend\tC = %s req/s (%s slots x %s ms, FIFO queue)\n' "$CAP" "$SLOTS" "$SERVICE_MS"
  printf 'generator\topen loop, timeout %s ms from the scheduled time, SLO %s ms, max %s connections\n' "$TIMEOUT_MS" "$SLO_MS" "$MAX_CONNS"
  printf 'phases\twarm-up %s s at 0.5 C, %s s per level, %s s apart; runs %s\n' "$WARM" "$PHASE" "$GAP" "$RUNS"
  printf 'haproxy\tserver maxconn %s, timeout queue %s ms\n' "$HAPROXY_MAXCONN" "$HAPROXY_QUEUE_MS"
  printf 'storm\tstart %s C, proxy %s C, continuation %s C, exempt %s C\n' "$STORM_START" "$STORM_PROXY" "$STORM_CONT" "$STORM_EXEMPT"
  if want_s refusal; then
    printf 'refusal\tedge on CPUs %s, generator and backend on CPUs %s; warm-up %s s at each level, then %s x C and %s x C, %s s each\n' \
      "$REFUSAL_EDGE_CPUS" "$REFUSAL_LOAD_CPUS" "$REFUSAL_WARM" "$REFUSAL_LOW" "$REFUSAL_HIGH" "$PHASE"
  fi
  if want_s slowpeer; then
    printf 'slowpeer\t%s x C per route; %s s / %s s (slow backend x %s) / %s s; outbound enforce, requestTimeoutMillis %s, breaker failureRatio 0.5 minCalls %s windowSeconds %s openSeconds %s probeCalls %s; inbound %s\n' \
      "$SLOWPEER_RATE" "$SLOWPEER_PRE" "$SLOWPEER_SLOW" "$SLOWPEER_FACTOR" "$SLOWPEER_POST" "$SLOWPEER_TIMEOUT_MS" \
      "$SLOWPEER_MIN_CALLS" "$SLOWPEER_WINDOW_S" "$SLOWPEER_OPEN_S" "$SLOWPEER_PROBES" "$SLOWPEER_INBOUND"
  fi
  printf 'java\t%s\n' "$("$JAVA" -version 2>&1 | head -n 1)"
  printf 'nginx\t%s\n' "$(nginx -v 2>&1 | head -n 1 || true)"
  printf 'haproxy\t%s\n' "$(haproxy -v 2>&1 | head -n 1 || true)"
} >"$DIR/facts.tsv"
python3 "$LIB/overload_report.py" report "$RESULTS" "$DIR/facts.tsv" --samples-dir "$DIR" >"$REPORT"
cp "$RESULTS" "${REPORT%.md}.jsonl"
for f in "$DIR"/samples-step-r*.tsv "$DIR"/guard-slowpeer-r*.tsv; do [[ -f $f ]] && cp "$f" "$RESULTS_DIR/overload-$TS-$(basename "$f")"; done
cat "$REPORT"
log "report: $REPORT (raw: ${REPORT%.md}.jsonl)"
FAILED=0
