/**
 * The fleet-wide counter of the policy's rate limits in Redis, off the workers' loops, on the shared
 * script connection of {@code io.spillway.redis}.
 */
package io.spillway.edge.redis;
