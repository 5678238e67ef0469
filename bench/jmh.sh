#!/usr/bin/env bash
# Runs the JMH benchmarks (route matching, load-balancer picks). Arguments go to JMH, e.g.
#   bench/jmh.sh RouteMatch -f 1 -wi 2 -i 3
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/bin/spillway" build >/dev/null
source <(sed -n '/^java_major()/,/^}/p;/^find_jdk()/,/^}/p;/^die()/p' "$ROOT/bin/spillway")
find_jdk
exec "$JAVA_HOME/bin/java" -jar "$ROOT/bench/target/spillway-jmh.jar" "$@"
