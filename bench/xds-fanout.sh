#!/usr/bin/env bash
# bench/xds-fanout.sh — the xDS fan-out load harness (a benchmark, not a test).
#
# Starts one central (embedded H2 in a temp data dir, fixed admin token, free ports on
# 127.0.0.1), then runs io.spillway.bench.xds.FanOut against it: EDGES simulated edges, each one
# SotW ADS stream (node.id = edge id, Bearer credential from POST /configuration/edges), all
# multiplexed over CHANNELS gRPC channel(s), subscribed to OverloadPolicy and CDS (wildcard),
# ACKing every response. Then
#   ROUNDS          rounds of: PATCH every edge's policy (inbound mode enforce/shadow toggled), one
#                   PATCH after another; per edge, PATCH sent (and PATCH 200 received) -> the
#                   DiscoveryResponse with the new version on that edge's stream;
#   SELECTOR_ROUNDS rounds of: ONE PUT /configuration/resources/clusters/fanout?selector=env=bench;
#                   PUT sent (and 200) -> the CDS response on every edge's stream.
# WARMUP untimed warm-up rounds of each precede the measured ones. Prints p50/p99/max over all
# samples, and stops central. Exit status 1 if any push was missing.
#
# Environment (defaults in brackets):
#   EDGES [100]  ROUNDS [20]  SELECTOR_ROUNDS [20]  WARMUP [2]  CHANNELS [1]  PATCH_CONCURRENCY [1]
#   TIMEOUT_MS [10000]  per-round bound on waiting for the pushes
#   CENTRAL_JAVA_OPTS   extra JVM options for central []
#   REBUILD [0]  1 = build even if the jars exist
#   KEEP_DIR [0] 1 = keep the work dir (central's log, samples.tsv)
#   OUT          copy the per-sample TSV here []
set -euo pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_NAME=xds-fanout
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$SCRIPT_DIR/lib/common.sh"
EDGES=${EDGES:-100}
ROUNDS=${ROUNDS:-20}
SELECTOR_ROUNDS=${SELECTOR_ROUNDS:-20}
CHANNELS=${CHANNELS:-1}
PATCH_CONCURRENCY=${PATCH_CONCURRENCY:-1}
WARMUP=${WARMUP:-2}
TIMEOUT_MS=${TIMEOUT_MS:-10000}
CENTRAL_JAVA_OPTS=${CENTRAL_JAVA_OPTS:-}
REBUILD=${REBUILD:-0}
KEEP_DIR=${KEEP_DIR:-0}
OUT=${OUT:-}
CENTRAL_JAR=$REPO_ROOT/central/target/spillway-central-all.jar
BENCH_JAR=$REPO_ROOT/bench/target/spillway-jmh.jar
TOKEN=xds-fanout-bench-token

JDK=$(find_jdk) || die "need a JDK >= 21 (set JAVA_HOME)"
JMAJOR=$(java_major "$JDK")
JAVA=$JDK/bin/java
JFLAGS=(--enable-native-access=ALL-UNNAMED)
(( JMAJOR >= 23 )) && JFLAGS+=(--sun-misc-unsafe-memory-access=allow)

R=$REPO_ROOT
if (( REBUILD )) || stale "$CENTRAL_JAR" "$R/central/src/main" "$R/central/pom.xml" "$R/edge/src/main" "$R/policy/src/main" \
    || stale "$BENCH_JAR" "$R/bench/src/main" "$R/bench/pom.xml" "$R/edge/src/main"; then
  log "building (bin/spillway build) with $JDK"
  (cd "$REPO_ROOT" && JAVA_HOME=$JDK PATH="$JDK/bin:$PATH" bin/spillway build) >&2 || die "build failed"
fi
[[ -f $CENTRAL_JAR && -f $BENCH_JAR ]] || die "missing $CENTRAL_JAR or $BENCH_JAR after the build"

CENTRAL_PID=""
DIR=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n $CENTRAL_PID ]]; then
    stop_pid "$CENTRAL_PID" 10
    log "central stopped"
  fi
  if [[ -n $DIR && -d $DIR ]]; then
    if (( KEEP_DIR || rc != 0 )); then log "kept work dir: $DIR"; else rm -rf "$DIR"; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT
trap 'log terminated; exit 143' TERM

DIR=$(mktemp -d /tmp/xds-fanout.XXXXXX)

init_port_range
HTTP_PORT=$(pick_port); PICKED+="$HTTP_PORT "
XDS_PORT=$(pick_port); PICKED+="$XDS_PORT "

log "starting central (H2 in $DIR/data, http $HTTP_PORT, xds $XDS_PORT)"
# shellcheck disable=SC2086
SPILLWAY_ADMIN_TOKEN=$TOKEN "$JAVA" "${JFLAGS[@]}" $CENTRAL_JAVA_OPTS -jar "$CENTRAL_JAR" \
  --data-dir "$DIR/data" --http-address 127.0.0.1 --http-port "$HTTP_PORT" \
  --xds-address 127.0.0.1 --xds-port "$XDS_PORT" >"$DIR/central.log" 2>&1 &
CENTRAL_PID=$!
wait_http central "$CENTRAL_PID" "http://127.0.0.1:$HTTP_PORT/readyz" 60
log "central ready (pid $CENTRAL_PID); $(nproc) CPUs; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"

rc=0
# Bounded: registration + connect + (ROUNDS + SELECTOR_ROUNDS + 2 * WARMUP) rounds, each at most TIMEOUT_MS of waiting.
LIMIT=$(( 120 + (ROUNDS + SELECTOR_ROUNDS + 2) * (TIMEOUT_MS / 1000 + 5) ))
timeout --kill-after=10 "$LIMIT" "$JAVA" "${JFLAGS[@]}" -cp "$BENCH_JAR" io.spillway.bench.xds.FanOut \
  --http-port "$HTTP_PORT" --xds-port "$XDS_PORT" --token "$TOKEN" \
  --edges "$EDGES" --rounds "$ROUNDS" --selector-rounds "$SELECTOR_ROUNDS" --warmup-rounds "$WARMUP" \
  --channels "$CHANNELS" --patch-concurrency "$PATCH_CONCURRENCY" --timeout-ms "$TIMEOUT_MS" \
  --out "$DIR/samples.tsv" || rc=$?
[[ -n $OUT ]] && cp "$DIR/samples.tsv" "$OUT" 2>/dev/null && log "samples written to $OUT"
if (( rc != 0 )); then
  log "FanOut exited with $rc; central log tail:"
  tail -n 20 "$DIR/central.log" >&2
fi
exit "$rc"
