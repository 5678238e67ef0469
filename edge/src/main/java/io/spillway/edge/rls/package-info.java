/**
 * The seam between the global rate limit filter (hot path) and a rate limit service reached over
 * gRPC (control side): what a {@code ShouldRateLimit} call asks and answers, in plain Java types,
 * and the client that makes it.
 */
package io.spillway.edge.rls;
