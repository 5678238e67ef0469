#!/usr/bin/env bash
# bench/proxy-compare.sh — compare the Spillway edge with nginx and HAProxy.
#
# In one invocation on this machine it starts ONE origin (a 1-worker nginx that
# answers "ok\n") and, in front of it, each selected proxy configured as an
# equivalent keep-alive reverse proxy with 2 workers/threads. Each proxy is then
# loaded with wrk (HTTP/1.1) and h2load (h2c, prior knowledge), and the report
# (requests/s, p50/p99 latency, proxy CPU per 1000 requests, RSS after the run, edge/other ratios) goes to
# stdout and to bench/results/proxy-compare-<timestamp>.md.
#
# Every process it starts is stopped on exit (also on failure or Ctrl-C); every
# load step has a fixed duration and is additionally bounded by `timeout`.
#
# Environment (defaults in brackets):
#   PROXIES        proxies to measure, any of: edge nginx haproxy   [edge nginx haproxy]
#   PROTOCOLS      h1 (wrk) and/or h2 (h2load, h2c prior knowledge) [h1 h2]
#   DURATION       seconds per measured load step                   [30]
#   WARMUP         seconds of HTTP/1.1 warm-up per proxy (JIT)      [10]
#   H2_WARMUP      seconds of h2c warm-up per proxy                 [5]
#   WARMUP_EVERY_RUN  1 = warm up in every run, not only the first  [0]
#   CONNECTIONS    concurrent connections (wrk -c, h2load -c)       [64]
#   THREADS        wrk threads (-t)                                 [2]
#   H2_THREADS     h2load threads (-t)                              [$THREADS]
#   H2_STREAMS     h2load max concurrent streams per connection (-m)[1]
#   RUNS           repetitions; the report shows the median per cell [1]
#   BASELINE       1 = also run wrk straight at the origin (no proxy) each run [1]
#   COOLDOWN       seconds of idle between load steps               [2]
#   PIN            1 = pin with taskset (see *_CPUS)                [0]
#   LOADGEN_CPUS / PROXY_CPUS / ORIGIN_CPUS  taskset CPU lists for PIN=1 [0 / 1 / 0]
#   EDGE_JAR       edge fat jar          [edge/target/spillway-edge-all.jar]
#   EDGE_JAVA_OPTS JVM options for the edge      [bin/spillway's edge defaults]
#   EDGE_ARGS      extra edge command-line options, e.g. --transport io_uring []
#   EDGE_READY_TIMEOUT seconds to wait for the edge admin /ready    [60]
#   REBUILD        1 = build the edge jar even if it exists         [0]
#   INSTALL        0 = never run apt-get, fail if a tool is missing [1]
#   KEEP_DIR       1 = keep the temp dir (configs, logs, raw output)[0]
#   RESULTS_DIR    where the Markdown report goes         [bench/results]
set -euo pipefail

export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
LIB=$SCRIPT_DIR/lib
BENCH_NAME=proxy-compare
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$LIB/common.sh"

PROXIES=${PROXIES:-"edge nginx haproxy"}
PROTOCOLS=${PROTOCOLS:-"h1 h2"}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-10}
H2_WARMUP=${H2_WARMUP:-5}
WARMUP_EVERY_RUN=${WARMUP_EVERY_RUN:-0}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
H2_THREADS=${H2_THREADS:-$THREADS}
H2_STREAMS=${H2_STREAMS:-1}
RUNS=${RUNS:-1}
BASELINE=${BASELINE:-1}
COOLDOWN=${COOLDOWN:-2}
PIN=${PIN:-0}
LOADGEN_CPUS=${LOADGEN_CPUS:-0}
PROXY_CPUS=${PROXY_CPUS:-1}
ORIGIN_CPUS=${ORIGIN_CPUS:-0}
EDGE_JAR=${EDGE_JAR:-$REPO_ROOT/edge/target/spillway-edge-all.jar}
EDGE_JAVA_OPTS_GIVEN=${EDGE_JAVA_OPTS+set}
EDGE_JAVA_OPTS=${EDGE_JAVA_OPTS:-}
EDGE_ARGS=${EDGE_ARGS:-}
REBUILD=${REBUILD:-0}
INSTALL=${INSTALL:-1}
KEEP_DIR=${KEEP_DIR:-0}
RESULTS_DIR=${RESULTS_DIR:-$SCRIPT_DIR/results}

EDGE_READY_TIMEOUT=${EDGE_READY_TIMEOUT:-60}   # seconds for GET /ready on the edge admin port
PORT_READY_TIMEOUT=20   # seconds for nginx / HAProxy / origin to answer
SLACK=30                # extra seconds `timeout` grants a load step beyond its duration

# ----------------------------------------------------------------- validation
for v in DURATION WARMUP H2_WARMUP CONNECTIONS THREADS H2_THREADS H2_STREAMS RUNS COOLDOWN BASELINE PIN \
         WARMUP_EVERY_RUN REBUILD INSTALL KEEP_DIR EDGE_READY_TIMEOUT; do
  is_uint "${!v}" || die "$v must be a non-negative integer (got '${!v}')"
done
for v in DURATION CONNECTIONS THREADS H2_THREADS H2_STREAMS RUNS; do
  (( ${!v} > 0 )) || die "$v must be > 0"
done
(( DURATION <= 300 )) || die "DURATION is capped at 300 s per step"
(( WARMUP <= 120 && H2_WARMUP <= 120 )) || die "warm-ups are capped at 120 s"
(( RUNS <= 9 )) || die "RUNS is capped at 9"
(( THREADS <= CONNECTIONS && H2_THREADS <= CONNECTIONS )) || die "threads must not exceed CONNECTIONS"
read -r -a PROXY_LIST <<<"$PROXIES"
read -r -a PROTO_LIST <<<"$PROTOCOLS"
(( ${#PROXY_LIST[@]} > 0 )) || die "PROXIES is empty"
(( ${#PROTO_LIST[@]} > 0 )) || die "PROTOCOLS is empty"
for p in "${PROXY_LIST[@]}"; do
  case $p in edge|nginx|haproxy) ;; *) die "unknown proxy '$p' in PROXIES (use edge, nginx, haproxy)";; esac
done
for p in "${PROTO_LIST[@]}"; do
  case $p in h1|h2) ;; *) die "unknown protocol '$p' in PROTOCOLS (use h1, h2)";; esac
done
want_proxy() { [[ " ${PROXY_LIST[*]} " == *" $1 "* ]]; }
want_proto() { [[ " ${PROTO_LIST[*]} " == *" $1 "* ]]; }

# ------------------------------------------------------------ process tracking
# PIDS: long-running processes we started (origin, proxies); LOAD_PID: the load generator
# currently running, if any; LAST_PID: the process start_bg started last.
install_cleanup 10
LAST_PID=""

# start_bg NAME CPUS CMD... : start CMD in the background (pinned when PIN=1),
# log to $DIR/NAME.log, remember the pid in PIDS and in LAST_PID.
start_bg() {
  local name=$1 cpus=$2; shift 2
  if (( PIN )); then set -- taskset -c "$cpus" "$@"; fi
  "$@" >"$DIR/$name.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  LAST_PID=$pid
  log "started $name (pid $pid): $*"
}

# run_load SECONDS OUTFILE CMD... : run a load generator in the background and
# wait for it, bounded by `timeout`, so that signals reach the trap promptly.
run_load() {
  local secs=$1 out=$2; shift 2
  if (( PIN )); then set -- taskset -c "$LOADGEN_CPUS" "$@"; fi
  timeout --kill-after=5 "$((secs + SLACK))" "$@" >"$out" 2>&1 &
  LOAD_PID=$!
  local rc=0
  wait "$LOAD_PID" || rc=$?
  LOAD_PID=""
  if (( rc != 0 )); then
    log "load generator failed (exit $rc): $*"
    tail -n 20 "$out" >&2 || true
    return "$rc"
  fi
}

# ------------------------------------------------------------------ tools
LOADAVG_START=$(cut -d' ' -f1-3 /proc/loadavg)
need_tools=(nginx wrk curl ps ss)
want_proxy haproxy && need_tools+=(haproxy)
want_proto h2 && need_tools+=(h2load)
(( PIN )) && need_tools+=(taskset)
missing_pkgs=()
for t in "${need_tools[@]}"; do
  command -v "$t" >/dev/null 2>&1 && continue
  case $t in
    nginx) missing_pkgs+=(nginx) ;;
    haproxy) missing_pkgs+=(haproxy) ;;
    wrk) missing_pkgs+=(wrk) ;;
    h2load) missing_pkgs+=(nghttp2-client) ;;
    curl) missing_pkgs+=(curl) ;;
    ps) missing_pkgs+=(procps) ;;
    ss) missing_pkgs+=(iproute2) ;;
    taskset) missing_pkgs+=(util-linux) ;;
  esac
done
command -v python3 >/dev/null 2>&1 || missing_pkgs+=(python3)

if (( ${#missing_pkgs[@]} )); then
  (( INSTALL )) || die "missing packages: ${missing_pkgs[*]} (INSTALL=0 given)"
  (( EUID == 0 )) || die "missing packages: ${missing_pkgs[*]}; run as root or install them first"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: ${missing_pkgs[*]} and no apt-get"
  before=" $(pgrep -d ' ' -x 'nginx|haproxy' || true) "
  log "installing: ${missing_pkgs[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing_pkgs[@]}" >&2
  # A package's postinst may start the system service; we use our own configs,
  # so stop exactly the nginx/haproxy processes that appeared during the install.
  for pid in $(pgrep -x 'nginx|haproxy' || true); do
    [[ $before == *" $pid "* ]] && continue
    log "stopping a service instance the package install started: pid $pid ($(ps -o comm= -p "$pid" || true))"
    kill -TERM "$pid" 2>/dev/null || true
  done
  for t in "${need_tools[@]}"; do
    command -v "$t" >/dev/null 2>&1 || die "$t still missing after apt-get install"
  done
fi

# ------------------------------------------------------------------ java / edge
JDK=""
if want_proxy edge; then
  JDK=$(find_jdk) || die "the edge needs a JDK >= 21: set JAVA_HOME (tried \$JAVA_HOME, /usr/lib/jvm/temurin-25-jdk-amd64, /usr/lib/jvm/*21*, /usr/lib/jvm/*)"
  if [[ ! -f $EDGE_JAR ]] || (( REBUILD )); then
    log "building the edge jar with JDK $JDK"
    if [[ -x $REPO_ROOT/bin/spillway ]]; then
      (cd "$REPO_ROOT" && JAVA_HOME=$JDK PATH="$JDK/bin:$PATH" bin/spillway build) >&2
    else
      command -v mvn >/dev/null 2>&1 || die "no bin/spillway and no mvn to build $EDGE_JAR"
      (cd "$REPO_ROOT" && JAVA_HOME=$JDK PATH="$JDK/bin:$PATH" mvn -B -q -DskipTests package) >&2
    fi
    [[ -f $EDGE_JAR ]] || die "build finished but $EDGE_JAR does not exist"
  fi
  if [[ -z $EDGE_JAVA_OPTS_GIVEN ]]; then
    launcher_edge_opts "$JDK" # what `bin/spillway edge` starts
  fi
fi

# ------------------------------------------------------------------ work dir, ports
DIR=$(mktemp -d /tmp/proxy-compare.XXXXXX)
chmod 755 "$DIR"   # nginx workers run as an unprivileged user and may need to read it
mkdir -p "$DIR/tmp"

# Ports come from below the kernel's ephemeral range, so that client sockets
# (wrk, h2load, proxies' upstream connections) can never hold one of them.
init_port_range
ORIGIN_PORT=$(pick_port);  PICKED+="$ORIGIN_PORT "
NGINX_H1_PORT=$(pick_port); PICKED+="$NGINX_H1_PORT "
NGINX_H2_PORT=$(pick_port); PICKED+="$NGINX_H2_PORT "
HAPROXY_H1_PORT=$(pick_port); PICKED+="$HAPROXY_H1_PORT "
HAPROXY_H2_PORT=$(pick_port); PICKED+="$HAPROXY_H2_PORT "
EDGE_PORT=$(pick_port);  PICKED+="$EDGE_PORT "
EDGE_ADMIN_PORT=$(pick_port); PICKED+="$EDGE_ADMIN_PORT "

# ------------------------------------------------------------------ configs
# Temp paths of every nginx instance live in $DIR so nothing touches /var.
nginx_temp_paths() {
  local n=$1
  mkdir -p "$DIR/tmp/$n"
  cat <<EOF
    client_body_temp_path $DIR/tmp/$n/body;
    proxy_temp_path       $DIR/tmp/$n/proxy;
    fastcgi_temp_path     $DIR/tmp/$n/fastcgi;
    uwsgi_temp_path       $DIR/tmp/$n/uwsgi;
    scgi_temp_path        $DIR/tmp/$n/scgi;
EOF
}

# The origin: one nginx worker answering every request with 200 "ok\n" from memory.
cat >"$DIR/origin.conf" <<EOF
worker_processes 1;
pid $DIR/origin.pid;
error_log $DIR/origin-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
$(nginx_temp_paths origin)
    keepalive_timeout 120s;
    keepalive_requests 100000000;
    server {
        listen 127.0.0.1:$ORIGIN_PORT backlog=4096;
        location / {
            default_type text/plain;
            return 200 "ok\n";
        }
        # Read directly (not through a proxy) before and after each measured
        # step, to count the upstream connections and requests the proxy made.
        location = /__origin_status {
            stub_status;
        }
    }
}
EOF

# nginx: 2 workers, upstream keep-alive pool, HTTP/1.1 upstream, h2c on its own port.
cat >"$DIR/nginx.conf" <<EOF
worker_processes 2;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
$(nginx_temp_paths nginx)
    keepalive_timeout 120s;
    keepalive_requests 100000000;   # also bounds requests per h2 connection (nginx >= 1.19.7)
    upstream origin {
        server 127.0.0.1:$ORIGIN_PORT;
        keepalive 64;
        keepalive_requests 100000000;
        keepalive_timeout 120s;
    }
    server {
        listen 127.0.0.1:$NGINX_H1_PORT backlog=4096;
        listen 127.0.0.1:$NGINX_H2_PORT backlog=4096 http2;  # cleartext: h2 prior knowledge only
        location / {
            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
EOF

# HAProxy: 2 threads, HTTP mode, aggressive server-side connection reuse.
cat >"$DIR/haproxy.cfg" <<EOF
global
    nbthread 2
    maxconn 4096
    pidfile $DIR/haproxy.pid

defaults
    mode http
    option http-keep-alive
    http-reuse always
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout http-keep-alive 120s
    timeout http-request 10s

frontend fe_h1
    bind 127.0.0.1:$HAPROXY_H1_PORT
    default_backend origin

frontend fe_h2
    bind 127.0.0.1:$HAPROXY_H2_PORT proto h2
    default_backend origin

backend origin
    server origin1 127.0.0.1:$ORIGIN_PORT
EOF

# The edge: a standard Envoy v3 static bootstrap; one listener (codec AUTO, so
# HTTP/1.1 and h2c prior knowledge share its port) routing / to cluster origin.
edge_yaml "$EDGE_ADMIN_PORT" "$EDGE_PORT" '              - match: { prefix: "/" }
                route: { cluster: origin }' "$(static_cluster origin "$ORIGIN_PORT")" >"$DIR/edge.yaml"

# ------------------------------------------------------------------ start
nginx -t -q -e "$DIR/origin-error.log" -p "$DIR" -c "$DIR/origin.conf" >&2 || die "origin nginx config invalid ($DIR/origin.conf)"
start_bg origin "$ORIGIN_CPUS" nginx -e "$DIR/origin-error.log" -p "$DIR" -c "$DIR/origin.conf" -g 'daemon off;'
ORIGIN_PID=$LAST_PID
wait_http origin "$ORIGIN_PID" "http://127.0.0.1:$ORIGIN_PORT/" "$PORT_READY_TIMEOUT"

declare -A PROXY_PID H1_URL H2_URL
# "direct": the load generator straight at the origin, the ceiling for this machine.
PROXY_PID[direct]=$ORIGIN_PID
H1_URL[direct]="http://127.0.0.1:$ORIGIN_PORT/"
if want_proxy nginx; then
  nginx -t -q -e "$DIR/nginx-error.log" -p "$DIR" -c "$DIR/nginx.conf" >&2 || die "nginx config invalid ($DIR/nginx.conf)"
  start_bg nginx "$PROXY_CPUS" nginx -e "$DIR/nginx-error.log" -p "$DIR" -c "$DIR/nginx.conf" -g 'daemon off;'
  PROXY_PID[nginx]=$LAST_PID
  H1_URL[nginx]="http://127.0.0.1:$NGINX_H1_PORT/"
  H2_URL[nginx]="http://127.0.0.1:$NGINX_H2_PORT/"
fi
if want_proxy haproxy; then
  haproxy -c -q -f "$DIR/haproxy.cfg" >&2 || die "HAProxy config invalid ($DIR/haproxy.cfg)"
  start_bg haproxy "$PROXY_CPUS" haproxy -db -f "$DIR/haproxy.cfg"
  PROXY_PID[haproxy]=$LAST_PID
  H1_URL[haproxy]="http://127.0.0.1:$HAPROXY_H1_PORT/"
  H2_URL[haproxy]="http://127.0.0.1:$HAPROXY_H2_PORT/"
fi
if want_proxy edge; then
  # shellcheck disable=SC2086  # EDGE_JAVA_OPTS is a list of options
  start_bg edge "$PROXY_CPUS" "$JDK/bin/java" $EDGE_JAVA_OPTS -jar "$EDGE_JAR" -c "$DIR/edge.yaml" --concurrency 2 $EDGE_ARGS
  PROXY_PID[edge]=$LAST_PID
  H1_URL[edge]="http://127.0.0.1:$EDGE_PORT/"
  H2_URL[edge]="http://127.0.0.1:$EDGE_PORT/"
  log "waiting up to ${EDGE_READY_TIMEOUT}s for the edge admin /ready"
  wait_http edge "${PROXY_PID[edge]}" "http://127.0.0.1:$EDGE_ADMIN_PORT/ready" "$EDGE_READY_TIMEOUT"
fi
for p in nginx haproxy; do
  if want_proxy "$p"; then wait_http "$p" "${PROXY_PID[$p]}" "${H1_URL[$p]}" "$PORT_READY_TIMEOUT"; fi
done

# Smoke checks: every proxy must return the origin's body, over h1 and h2c.
for p in "${PROXY_LIST[@]}"; do
  if want_proto h1; then
    body=$(curl -sS --http1.1 --max-time 5 "${H1_URL[$p]}" 2>&1 || true)
    [[ $body == ok ]] || die "$p: GET ${H1_URL[$p]} over HTTP/1.1 did not return the origin's 'ok' (got: ${body:0:200})"
  fi
  if want_proto h2; then
    body=$(curl -sS --http2-prior-knowledge --max-time 5 "${H2_URL[$p]}" 2>&1 || true)
    [[ $body == ok ]] || die "$p: GET ${H2_URL[$p]} over h2c prior knowledge did not return 'ok' (got: ${body:0:200})"
    run_load 10 "$DIR/h2check-$p.txt" h2load -n 100 -c 2 -m 1 "${H2_URL[$p]}" ||
      die "$p: h2load smoke run failed (see $DIR/h2check-$p.txt)"
    chk=$(python3 "$LIB/benchlib.py" h2check "$DIR/h2check-$p.txt" 100) ||
      die "$p: h2load smoke run was not 100/100 successful h2c requests: $chk"
    log "$p h2c smoke check: $chk"
  fi
done

# ------------------------------------------------------------------ measure
rss_kb() {  # sum of VmRSS over pid $1 and its descendants; prints "KB NPROCS"
  local total=0 n=0 pid kb
  for pid in "$1" $(descendants "$1"); do
    kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $kb ]] || continue
    total=$((total + kb)); n=$((n + 1))
  done
  echo "$total $n"
}

cpu_ticks() {  # user + system CPU time (clock ticks) of pid $1 and its descendants, all threads
  local total=0 pid t
  for pid in "$1" $(descendants "$1"); do
    # Fields 14 and 15 of /proc/PID/stat, counted after the command name (which may hold spaces).
    t=$(sed -E 's/^.*\) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }' || true)
    [[ -n $t ]] || continue
    total=$((total + t))
  done
  echo "$total"
}
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

origin_stats() {  # prints "ACCEPTS REQUESTS" from the origin's stub_status
  curl -s --max-time 5 "http://127.0.0.1:$ORIGIN_PORT/__origin_status" |
    awk 'NR == 3 { print $1, $3; found = 1 } END { if (!found) print "0 0" }'
}

RESULTS=$DIR/results.jsonl
: >"$RESULTS"

measure() {  # RUN ORDER PROXY PROTO WARM
  local run=$1 order=$2 p=$3 proto=$4 warm=$5 out rss o1 o2 oconns oreqs c1 c2
  local pid=${PROXY_PID[$p]}
  kill -0 "$pid" 2>/dev/null || die "$p (pid $pid) is no longer running; log: $DIR/$p.log"
  if [[ $proto == h1 ]]; then
    if (( warm && WARMUP > 0 )); then
      log "run $run: $p HTTP/1.1 warm-up ${WARMUP}s"
      run_load "$WARMUP" "$DIR/warm-$p-h1-r$run.txt" \
        wrk -t "$THREADS" -c "$CONNECTIONS" -d "${WARMUP}s" "${H1_URL[$p]}" || die "$p: wrk warm-up failed"
      sleep "$COOLDOWN"
    fi
    log "run $run: $p HTTP/1.1 wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s"
    out=$DIR/wrk-$p-r$run.txt
    o1=$(origin_stats)
    c1=$(cpu_ticks "$pid")
    run_load "$DURATION" "$out" wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" \
      --latency --timeout 5s -s "$LIB/wrk-json.lua" "${H1_URL[$p]}" || die "$p: wrk failed"
    c2=$(cpu_ticks "$pid")
    rss=$(rss_kb "$pid")
    o2=$(origin_stats)
    # The status read itself is one connection and one request at the origin.
    oconns=$(( ${o2% *} - ${o1% *} - 1 )); oreqs=$(( ${o2#* } - ${o1#* } - 1 ))
    python3 "$LIB/benchlib.py" wrk "$out" --meta "run=$run" --meta "order=$order" --meta "proxy=$p" \
      --meta "proto=h1" --meta "cpu_ms=$(( (c2 - c1) * 1000 / CLK_TCK ))" \
      --meta "rss_kb=${rss% *}" --meta "rss_procs=${rss#* }" \
      --meta "origin_conns=$oconns" --meta "origin_requests=$oreqs" >>"$RESULTS"
  else
    if (( warm && H2_WARMUP > 0 )); then
      log "run $run: $p h2c warm-up ${H2_WARMUP}s"
      run_load "$H2_WARMUP" "$DIR/warm-$p-h2-r$run.txt" \
        h2load -t "$H2_THREADS" -c "$CONNECTIONS" -m "$H2_STREAMS" -D "$H2_WARMUP" "${H2_URL[$p]}" ||
        die "$p: h2load warm-up failed"
      sleep "$COOLDOWN"
    fi
    log "run $run: $p h2c h2load -t$H2_THREADS -c$CONNECTIONS -m$H2_STREAMS -D$DURATION"
    out=$DIR/h2load-$p-r$run.txt
    o1=$(origin_stats)
    c1=$(cpu_ticks "$pid")
    run_load "$DURATION" "$out" h2load -t "$H2_THREADS" -c "$CONNECTIONS" -m "$H2_STREAMS" \
      -D "$DURATION" --log-file="$DIR/h2load-$p-r$run.log" "${H2_URL[$p]}" || die "$p: h2load failed"
    c2=$(cpu_ticks "$pid")
    rss=$(rss_kb "$pid")
    o2=$(origin_stats)
    # The status read itself is one connection and one request at the origin.
    oconns=$(( ${o2% *} - ${o1% *} - 1 )); oreqs=$(( ${o2#* } - ${o1#* } - 1 ))
    python3 "$LIB/benchlib.py" h2load "$out" "$DIR/h2load-$p-r$run.log" --meta "run=$run" \
      --meta "order=$order" --meta "proxy=$p" --meta "proto=h2" --meta "cpu_ms=$(( (c2 - c1) * 1000 / CLK_TCK ))" \
      --meta "rss_kb=${rss% *}" --meta "rss_procs=${rss#* }" \
      --meta "origin_conns=$oconns" --meta "origin_requests=$oreqs" >>"$RESULTS"
    rm -f "$DIR/h2load-$p-r$run.log"   # can be tens of MB; the percentiles are in results.jsonl
  fi
  tail -n 1 "$RESULTS" | python3 "$LIB/benchlib.py" line >&2
  sleep "$COOLDOWN"
}

n=${#PROXY_LIST[@]}
for (( run = 1; run <= RUNS; run++ )); do
  warm=0
  (( run == 1 || WARMUP_EVERY_RUN )) && warm=1
  if (( BASELINE )) && want_proto h1; then
    measure "$run" 0 direct h1 0
  fi
  # Rotate the order each run so no proxy always goes first (thermal/noise drift).
  for (( i = 0; i < n; i++ )); do
    p=${PROXY_LIST[$(( (i + run - 1) % n ))]}
    for proto in "${PROTO_LIST[@]}"; do
      measure "$run" "$((i + 1))" "$p" "$proto" "$warm"
    done
  done
done

# ------------------------------------------------------------------ report
first_line() { head -n 1 | tr -s ' \t' ' ' | sed 's/ *$//'; }
TS=$(date -u +%Y%m%dT%H%M%SZ)
{
  printf 'nproc\t%s\n' "$(nproc)"
  printf 'CPU model\t%s\n' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
  printf 'memory\t%s MiB\n' "$(awk '/^MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)"
  printf 'kernel\t%s\n' "$(uname -sr)"
  printf 'load average at start / end\t%s / %s\n' "$LOADAVG_START" "$(cut -d' ' -f1-3 /proc/loadavg)"
  if [[ -n $JDK ]]; then
    printf 'java (edge)\t%s\n' "$("$JDK/bin/java" -version 2>&1 | head -n 2 | tr '\n' ' ' | sed 's/ *$//') [$JDK]"
  else
    printf 'java (edge)\t%s\n' "not used"
  fi
  printf 'nginx\t%s\n' "$(nginx -v 2>&1 | first_line)"
  if command -v haproxy >/dev/null 2>&1; then printf 'haproxy\t%s\n' "$(haproxy -v 2>&1 | first_line)"; fi
  printf 'wrk\t%s\n' "$(wrk -v 2>&1 | first_line || true)"
  if command -v h2load >/dev/null 2>&1; then printf 'h2load\t%s\n' "$(h2load --version 2>&1 | first_line)"; fi
} >"$DIR/facts.tsv" 2>/dev/null
{
  printf 'timestamp\t%s\n' "$TS"
  printf 'proxies\t%s\n' "${PROXY_LIST[*]}"
  printf 'protocols\t%s\n' "${PROTO_LIST[*]}"
  printf 'runs\t%s\n' "$RUNS"
  printf 'baseline (wrk straight at the origin)\t%s\n' "$( (( BASELINE )) && want_proto h1 && echo yes || echo no)"
  printf 'duration per measured step\t%s s\n' "$DURATION"
  printf 'warm-up\tHTTP/1.1 %s s, h2c %s s (%s)\n' "$WARMUP" "$H2_WARMUP" \
    "$( (( WARMUP_EVERY_RUN )) && echo 'every run' || echo 'first run only')"
  printf 'connections\t%s\n' "$CONNECTIONS"
  printf 'wrk\t-t %s -c %s --latency --timeout 5s\n' "$THREADS" "$CONNECTIONS"
  printf 'h2load\t-t %s -c %s -m %s (h2c prior knowledge)\n' "$H2_THREADS" "$CONNECTIONS" "$H2_STREAMS"
  printf 'origin\tnginx, 1 worker, return 200 "ok\\n" (3-byte body), keep-alive\n'
  printf 'proxy workers\tnginx worker_processes 2; HAProxy nbthread 2; edge --concurrency 2\n'
  printf 'edge JVM options\t%s\n' "${EDGE_JAVA_OPTS:-(none)}"
  if (( PIN )); then
    printf 'pinning\tload generator CPUs %s, proxy CPUs %s, origin CPUs %s\n' "$LOADGEN_CPUS" "$PROXY_CPUS" "$ORIGIN_CPUS"
  else
    printf 'pinning\tnone\n'
  fi
} >"$DIR/params.tsv"

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/proxy-compare-$TS.md
python3 "$LIB/benchlib.py" report "$RESULTS" "$DIR/facts.tsv" "$DIR/params.tsv" >"$REPORT"
cp "$RESULTS" "$RESULTS_DIR/proxy-compare-$TS.jsonl"
cat "$REPORT"
log "report written to $REPORT (raw records: ${REPORT%.md}.jsonl)"
FAILED=0
