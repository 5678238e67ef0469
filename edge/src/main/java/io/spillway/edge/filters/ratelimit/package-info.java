/** Envoy's local rate limit HTTP filter: token buckets shared by every worker, per route, per descriptor or per connection. */
package io.spillway.edge.filters.ratelimit;
