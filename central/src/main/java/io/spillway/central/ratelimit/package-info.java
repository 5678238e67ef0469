/**
 * Central's rate limit service: Envoy's {@code envoy.service.ratelimit.v3.RateLimitService} on the
 * xDS server's port, limits in Lyft's ratelimit configuration format, fixed-window counters in Redis.
 */
package io.spillway.central.ratelimit;
