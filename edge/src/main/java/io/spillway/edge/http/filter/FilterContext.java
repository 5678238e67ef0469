package io.spillway.edge.http.filter;

import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.guard.GuardRegistry;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.upstream.ClusterManager;

/**
 * What a filter factory may use, given once when its connection manager is built (Envoy's
 * {@code FactoryContext}, the part Spillway has).
 *
 * @param config the connection manager's configuration
 * @param httpScope the stats scope {@code http.<stat_prefix>.}
 * @param clusters the edge's clusters, read at call time (CDS may change them)
 * @param guards the outbound guard of each peer, or null when there is none
 * @param admission inbound admission, shared by every listener
 * @param bufferLimitBytes the listener's per-connection buffer limit
 * @param tls whether the listener terminates TLS
 * @param rootScope the root stats scope, for filters whose stats Envoy names outside {@code http.}
 * @param nanoClock a monotonic clock in nanoseconds (System::nanoTime in the edge; a test's own)
 * @param runtime the runtime, for filters whose fractions and limits runtime keys may override
 * @param authorization the gRPC authorization clients (ext_authz with a {@code grpc_service})
 * @param healthCheckFailed whether the edge fails its own health check now ({@code /healthcheck/fail}, a drain)
 * @param rateLimitService the rate limit service clients (the global rate limit filter)
 * @param localCluster the edge's {@code node.cluster} ({@code source_cluster} descriptors), empty when unset
 * @param workers the edge's workers in index order (where a filter's own background calls run)
 */
public record FilterContext(
    HttpConnectionManagerConfig config,
    Scope httpScope,
    ClusterManager clusters,
    GuardRegistry guards,
    AdmissionController admission,
    int bufferLimitBytes,
    boolean tls,
    Scope rootScope,
    java.util.function.LongSupplier nanoClock,
    io.spillway.edge.runtime.Runtime runtime,
    io.spillway.edge.authz.AuthorizationClients authorization,
    java.util.function.BooleanSupplier healthCheckFailed,
    io.spillway.edge.rls.RateLimitClients rateLimitService,
    String localCluster,
    java.util.List<io.spillway.edge.upstream.Worker> workers) {}
