/** The policy's own rate limits ({@code rateLimits} from central): per-key token buckets, 429 in enforce, before any configured filter. */
package io.spillway.edge.filters.policylimit;
