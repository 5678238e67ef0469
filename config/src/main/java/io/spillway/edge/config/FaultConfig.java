package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Envoy's fault injection filter ({@code envoy.filters.http.fault}, {@code HTTPFault}) as the
 * edge runs it: an optional delay and an optional abort, each applied to a share of the requests
 * that pass the filter's conditions, with the runtime keys that may override them. A route's or
 * virtual host's {@code typed_per_filter_config} replaces the whole configuration, as in Envoy.
 *
 * @param delay the delay to inject, if any
 * @param abort the abort to inject, if any
 * @param upstreamCluster only requests whose route targets this cluster; empty for all
 * @param headers every matcher must hold for the request
 * @param downstreamNodes only requests whose {@code x-envoy-downstream-service-node} is one of these; empty for all
 * @param maxActiveFaults how many requests may be in a fault at once; empty for no limit
 * @param runtime the runtime keys, Envoy's defaults unless the config names its own
 */
public record FaultConfig(
    Optional<Delay> delay,
    Optional<Abort> abort,
    String upstreamCluster,
    List<Route.HeaderMatch> headers,
    Set<String> downstreamNodes,
    OptionalInt maxActiveFaults,
    RuntimeKeys runtime) implements HttpFilterConfig.Settings, RouteFilterConfig {

  public FaultConfig {
    headers = List.copyOf(headers);
    downstreamNodes = Set.copyOf(downstreamNodes);
  }

  /**
   * A delay: fixed, or read from the request's {@code x-envoy-fault-delay-request} header (ms).
   *
   * @param fixed the fixed delay; empty when the header decides
   * @param percentPerMillion share of requests delayed, in parts per million
   * @param perMillionPerUnit what one unit of the percentage's denominator is in parts per million
   *     (10,000 for HUNDRED): the scale of {@code x-envoy-fault-delay-request-percentage}
   */
  public record Delay(Optional<Duration> fixed, int percentPerMillion, int perMillionPerUnit) {}

  /** An abort, and what it answers. */
  public sealed interface Abort permits HttpAbort, GrpcAbort, HeaderAbort {
    /** Share of requests aborted, in parts per million. */
    int percentPerMillion();
  }

  /** Answer with this HTTP status (200–599). */
  public record HttpAbort(int status, int percentPerMillion) implements Abort {}

  /** Answer a gRPC trailers-only response with this {@code grpc-status}. */
  public record GrpcAbort(int grpcStatus, int percentPerMillion) implements Abort {}

  /**
   * The request's {@code x-envoy-fault-abort-request} (HTTP) or {@code x-envoy-fault-abort-grpc-request}
   * decides; {@code perMillionPerUnit} scales {@code x-envoy-fault-abort-request-percentage}.
   */
  public record HeaderAbort(int percentPerMillion, int perMillionPerUnit) implements Abort {}

  /** The runtime keys the filter reads, per request. */
  public record RuntimeKeys(String delayPercent, String abortPercent, String delayDurationMillis,
      String abortHttpStatus, String abortGrpcStatus, String maxActiveFaults) {

    /** Envoy's defaults. */
    public static final RuntimeKeys DEFAULTS = new RuntimeKeys("fault.http.delay.fixed_delay_percent",
        "fault.http.abort.abort_percent", "fault.http.delay.fixed_duration_ms", "fault.http.abort.http_status",
        "fault.http.abort.grpc_status", "fault.http.max_active_faults");
  }
}
