# shellcheck shell=bash
# bench/lib/common.sh — shell helpers shared by the load scripts in bench/ (proxy-compare.sh, pressure-lb.sh,
# overload.sh, xds-fanout.sh). Sourced, never run: it only defines functions, sets no shell
# options and exits nothing at load time.
#
# The sourcing script sets BENCH_NAME first (the prefix of `die`), and, before it uses the
# helpers that need them, DIR (its work dir; NAME.log files live there) and REPO_ROOT.
# Everything here that touches the network talks to 127.0.0.1 only; every wait is bounded.

# log MSG... : a timestamped line on stderr
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# die MSG... : "BENCH_NAME: ERROR: MSG" on stderr, exit 1 (the EXIT trap cleans up)
die() { printf '%s: ERROR: %s\n' "${BENCH_NAME:-bench}" "$*" >&2; exit 1; }

# is_uint S : true when S is a non-negative integer
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# ------------------------------------------------------------------ java

java_major() {  # major version of the java binary in JDK dir $1, or empty
  "$1/bin/java" -version 2>&1 | awk -F'"' '/version/ { print $2; exit }' |
    awk -F. '{ if ($1 == "1") print $2; else print $1 }' | sed 's/[^0-9].*//'
}

# launcher_edge_opts JDK_DIR : sets EDGE_JAVA_OPTS to the JVM options `bin/spillway edge` starts
# the edge with on that JDK (and exports MALLOC_ARENA_MAX as the launcher does), so a benchmark
# measures what users run. The flags and why: docs/benchmarks.md "The edge's JVM".
launcher_edge_opts() {
  # shellcheck disable=SC1090
  source <(sed -n '/^java_flags()/,/^}/p;/^edge_jvm_flags()/,/^}/p' "$REPO_ROOT/bin/spillway")
  JAVA_MAJOR=$(java_major "$1")
  java_flags
  edge_jvm_flags
  # JAVA_FLAGS matter: without --sun-misc-unsafe-memory-access=allow, Netty on JDK 25+ runs
  # without sun.misc.Unsafe (io.netty.noUnsafe defaults to true there) and every buffer access
  # goes through a bounds-checked ByteBuffer.
  EDGE_JAVA_OPTS="${JAVA_FLAGS[*]} ${EDGE_JVM_FLAGS[*]}"
}

# find_jdk : echo the dir of a JDK >= 21: $JAVA_HOME if it is one, else
# /usr/lib/jvm/temurin-25-jdk-amd64, else the first of /usr/lib/jvm/*21*, /usr/lib/jvm/*.
# None: say on stderr what to install, return 1 (the caller dies with its own message).
find_jdk() {
  local c m
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*21* /usr/lib/jvm/*; do
    [[ -n $c && -x $c/bin/java ]] || continue
    m=$(java_major "$c")
    if [[ -z $m ]] || (( m < 21 )); then continue; fi
    echo "$c"
    return 0
  done
  {
    printf '%s: no JDK >= 21 found (tried %s, /usr/lib/jvm/temurin-25-jdk-amd64, /usr/lib/jvm/*)\n' \
      "${BENCH_NAME:-bench}" "\$JAVA_HOME${JAVA_HOME:+ = $JAVA_HOME}"
    printf '%s: install one: apt-get install temurin-25-jdk (Adoptium apt repository, https://adoptium.net/installation/linux/)\n' "${BENCH_NAME:-bench}"
    printf '%s: or, on Debian 13 / Ubuntu 24.04, apt-get install openjdk-21-jdk; or point JAVA_HOME at a JDK >= 21\n' "${BENCH_NAME:-bench}"
  } >&2
  return 1
}

# stale JAR PATH... : true when JAR is missing or older than a file under one of the PATHs
stale() {
  local jar=$1; shift
  [[ ! -f $jar ]] || [[ -n $(find "$@" -newer "$jar" -type f -print -quit 2>/dev/null) ]]
}

# ------------------------------------------------------------------ ports

# init_port_range : set PORT_LO..PORT_HI to a range below the kernel's ephemeral range (above it
# when that starts low), so that client sockets (load generators, proxies' upstream connections)
# can never hold one of our listen ports; and reset PICKED, the ports handed out so far.
init_port_range() {
  read -r EPH_LO EPH_HI < /proc/sys/net/ipv4/ip_local_port_range || { EPH_LO=32768; EPH_HI=60999; }
  if (( EPH_LO > 12000 )); then PORT_LO=$(( EPH_LO > 30000 ? EPH_LO - 20000 : 10000 )); PORT_HI=$(( EPH_LO - 1 ))
  else PORT_LO=$(( EPH_HI + 1 )); PORT_HI=65000; fi
  (( PORT_HI - PORT_LO > 100 )) || die "no port range outside the ephemeral range $EPH_LO-$EPH_HI"
  PICKED=" "
}

port_in_use() {  # any TCP socket (listening or not) on that local port?
  if ss -Htan "( sport = :$1 )" 2>/dev/null | grep -q .; then return 0; fi
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pick_port : echo a free port in PORT_LO..PORT_HI not in PICKED (the caller adds it:
# P=$(pick_port); PICKED+="$P "). Needs init_port_range first.
pick_port() {
  local p tries=0
  while (( tries++ < 500 )); do
    p=$(( PORT_LO + (RANDOM * 32768 + RANDOM) % (PORT_HI - PORT_LO + 1) ))
    [[ $PICKED == *" $p "* ]] && continue
    port_in_use "$p" && continue
    echo "$p"
    return 0
  done
  die "could not find a free port in $PORT_LO-$PORT_HI"
}

# ------------------------------------------------------------------ processes

descendants() {  # all descendant pids of $1, depth first
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$c"
    descendants "$c"
  done
}

# wait_http NAME PID URL TIMEOUT_S : poll URL until it answers 200; die (with the tail of
# $DIR/NAME.log) if PID exits first or TIMEOUT_S pass.
wait_http() {
  local name=$1 pid=$2 url=$3 t=$4 code deadline=$((SECONDS + $4))
  while (( SECONDS < deadline )); do
    if ! kill -0 "$pid" 2>/dev/null; then
      local st=0
      wait "$pid" 2>/dev/null || st=$?
      tail -n 30 "$DIR/$name.log" >&2 || true
      die "$name (pid $pid) exited with status $st before it was ready; its log is above and in $DIR/$name.log"
    fi
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)
    [[ $code == 200 ]] && return 0
    sleep 0.25
  done
  tail -n 30 "$DIR/$name.log" >&2 || true
  die "$name did not answer 200 on $url within ${t}s (last status: ${code:-none}); log: $DIR/$name.log"
}

# stop_pid PID [SECONDS] : TERM, wait up to SECONDS (default 5) for it to exit, then KILL; reap it
stop_pid() {
  local pid=$1 secs=${2:-5} i
  kill -TERM "$pid" 2>/dev/null || return 0
  for (( i = 0; i < secs * 5; i++ )); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# stop_pids SECONDS PID... : for the exit trap. TERM every PID, wait up to SECONDS for them and
# their descendants (as they were before the TERM) to exit, then KILL whatever is left, and say so.
stop_pids() {
  local secs=$1 all=() pid i alive
  shift
  for pid in "$@"; do
    kill -0 "$pid" 2>/dev/null || continue
    all+=("$pid")
    mapfile -t -O "${#all[@]}" all < <(descendants "$pid")
  done
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for (( i = 0; i < secs * 5; i++ )); do
    alive=0
    for pid in "${all[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    (( alive )) || break
    sleep 0.2
  done
  for pid in "${all[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid did not stop on TERM; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# ------------------------------------------------------------------ run scaffolding

# build_if_stale JAR... : with JDK and REPO_ROOT set, rebuild (bin/spillway build) when REBUILD=1 or
# any JAR is older than the main sources of the modules the edge jar holds (policy, config, edge) or
# of the bench; die when a JAR is still missing.
build_if_stale() {
  local src=("$REPO_ROOT/policy/src/main" "$REPO_ROOT/config/src/main" "$REPO_ROOT/edge/src/main"
    "$REPO_ROOT/bench/src/main") jar need=${REBUILD:-0}
  for jar in "$@"; do stale "$jar" "${src[@]}" && need=1; done
  if (( need )); then
    log "building (bin/spillway build) with $JDK"
    (cd "$REPO_ROOT" && JAVA_HOME=$JDK PATH="$JDK/bin:$PATH" bin/spillway build) >&2 || die "build failed"
  fi
  for jar in "$@"; do [[ -f $jar ]] || die "missing $jar after the build"; done
}

# install_cleanup STOP_SECONDS : the EXIT/INT/TERM traps every run uses. On exit they stop the
# processes in PIDS (and LOAD_PID, a load generator that may be running), then remove DIR unless
# KEEP_DIR=1, the run failed, or FAILED is still 1 (the script sets FAILED=0 when it finished).
install_cleanup() {
  PIDS=()
  LOAD_PID=""
  DIR=""
  FAILED=1
  CLEANUP_STOP_SECONDS=$1
  trap bench_cleanup EXIT
  trap 'log interrupted; exit 130' INT
  trap 'log terminated; exit 143' TERM
}

bench_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n $LOAD_PID ]] && kill -0 "$LOAD_PID" 2>/dev/null; then kill -TERM "$LOAD_PID" 2>/dev/null; fi
  stop_pids "$CLEANUP_STOP_SECONDS" "${PIDS[@]}"
  if [[ -n $DIR && -d $DIR ]]; then
    if (( ${KEEP_DIR:-0} || rc != 0 || FAILED )); then log "kept work dir (configs, logs, raw output): $DIR"; else rm -rf "$DIR"; fi
  fi
  exit "$rc"
}

# start_bg NAME CMD... : start CMD in the background, its output in $DIR/NAME.log; its pid goes
# to PIDS (stopped on exit) and LAST_PID. A script that pins processes defines its own.
start_bg() {
  local name=$1; shift
  "$@" >"$DIR/$name.log" 2>&1 &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
  log "started $name (pid $LAST_PID)"
}

# edge_yaml ADMIN_PORT PORT ROUTES CLUSTERS : on stdout, a benchmark edge's Envoy v3 static bootstrap:
# admin on ADMIN_PORT, one listener on PORT (codec AUTO: HTTP/1.1 and h2c prior knowledge) whose
# virtual host "*" has ROUTES (route items, 14 spaces in), and CLUSTERS (items from static_cluster).
edge_yaml() {
  cat <<EOF
admin:
  address:
    socket_address: { address: 127.0.0.1, port_value: $1 }
static_resources:
  listeners:
  - name: bench_listener
    address:
      socket_address: { address: 127.0.0.1, port_value: $2 }
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: bench
          codec_type: AUTO
          route_config:
            name: bench_route
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
$3
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  clusters:
$4
EOF
}
# static_cluster NAME PORT : a STATIC cluster of one host, 127.0.0.1:PORT, as a bootstrap list item
static_cluster() {
  cat <<EOF
  - name: $1
    type: STATIC
    connect_timeout: 1s
    lb_policy: ROUND_ROBIN
    load_assignment:
      cluster_name: $1
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: { address: 127.0.0.1, port_value: $2 }
EOF
}
