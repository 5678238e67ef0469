#!/usr/bin/env bash
# bench/fleet-ratelimit.sh — the cost of a fleet-wide rate limit's check: the edge's own Redis
# counter (io.spillway.edge.redis.RedisFleetCounter: one Lettuce connection, one GCRA script per
# check) driven open-loop at each rate in RATES against a redis-server of this run's own on
# 127.0.0.1 (never the machine's shared one), by io.spillway.bench.fleet.FleetCheckLoad: latency
# from each check's scheduled instant to its answer (what an enforced request waits), Redis round
# trips per check (Redis's INFO commandstats), answers lost. Every check is admitted — the costly
# case; a refused key value is refused on the edge without a round trip.
#
# Environment (defaults in brackets):
#   RATES       checks per second, one run each        [1000 10000]
#   DURATION    measured seconds per run               [20]
#   WARMUP      seconds of warm-up before each run     [5]
#   KEYS        distinct key values                    [1000]
#   TIMEOUT_MS  the counter's timeout (--redis-timeout) [20]
#   RUNS        repetitions (medians in the report)    [1]
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
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}
for v in DURATION WARMUP KEYS TIMEOUT_MS RUNS; do is_uint "${!v}" || die "$v must be a whole number"; done
for r in $RATES; do is_uint "$r" && (( r >= 1 && r <= 200000 )) || die "RATES: $r is not 1..200000"; done
(( DURATION >= 1 && DURATION <= 600 )) || die "DURATION must be 1..600"

command -v redis-server >/dev/null || die "needs redis-server (apt-get install redis-server)"
JDK=$(find_jdk) || die "need a JDK >= 21 (set JAVA_HOME)"
JAVA=$JDK/bin/java
EDGE_JAR=$REPO_ROOT/edge/target/spillway-edge-all.jar
BENCH_JAR=$REPO_ROOT/bench/target/spillway-jmh.jar
build_if_stale "$EDGE_JAR" "$BENCH_JAR"

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

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/fleet-ratelimit-$(date +%Y%m%d-%H%M%S).md
python3 - "$RESULTS" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(redis-server --version | cut -d' ' -f3)" >"$REPORT" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
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
PY
cat "$REPORT"
log "report: $REPORT"
FAILED=0
