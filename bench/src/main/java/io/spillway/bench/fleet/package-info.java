/** The load driver of bench/fleet-ratelimit.sh: the fleet-wide rate limit's Redis check at a fixed rate. */
package io.spillway.bench.fleet;
