/**
 * Redis through Lettuce, off the workers' loops: one shared non-blocking connection that runs Lua
 * scripts, and the fleet-wide counter of the policy's rate limits on it. Central's rate limit
 * service uses the same connection class.
 */
package io.spillway.edge.redis;
