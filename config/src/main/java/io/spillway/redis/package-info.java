/**
 * One shared, non-blocking Lettuce connection to Redis that runs Lua scripts: the edge's fleet-wide
 * counters and central's rate limit service count through it.
 */
package io.spillway.redis;
