/** Clusters, hosts, load balancers and per-worker upstream connection pools (hot path). */
package io.spillway.edge.upstream;
