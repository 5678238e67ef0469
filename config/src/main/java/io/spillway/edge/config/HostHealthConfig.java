package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How a cluster decides which of its hosts take traffic: Envoy's active health checking
 * ({@code health_checks}), outlier detection ({@code outlier_detection}) and the panic threshold
 * ({@code common_lb_config.healthy_panic_threshold}).
 *
 * @param healthCheck the cluster's active health check (Envoy allows a list; Spillway one)
 * @param outlier the cluster's outlier detection
 * @param healthyPanicThreshold below this percentage of healthy hosts the cluster balances over
 *     every host, healthy or not (Envoy default 50; 0 disables panic)
 */
public record HostHealthConfig(Optional<HealthCheck> healthCheck, Optional<Outlier> outlier,
    double healthyPanicThreshold) {

  /** No health checking, no outlier detection, Envoy's 50 % panic threshold. */
  public static final HostHealthConfig NONE = new HostHealthConfig(Optional.empty(), Optional.empty(), 50.0);

  /** Whether hosts can be anything but healthy (so a load balancer must look at their flags). */
  public boolean tracksHealth() {
    return healthCheck.isPresent() || outlier.isPresent();
  }

  /**
   * One {@code envoy.config.core.v3.HealthCheck}.
   *
   * @param timeout how long one check may take; past it the check is a (network) failure
   * @param interval between checks of a healthy host
   * @param initialJitter the first check of a host waits a random time in [0, initialJitter)
   * @param intervalJitter a random time in [0, intervalJitter) added to every interval
   * @param intervalJitterPercent a random time in [0, interval × percent / 100) added to every interval
   * @param unhealthyThreshold failed checks (network failures, timeouts, retriable statuses) before
   *     a healthy host is marked unhealthy; any other unexpected status marks it at once
   * @param healthyThreshold passed checks before an unhealthy host is marked healthy (a new host's
   *     first pass is enough)
   * @param unhealthyInterval between checks of an unhealthy host
   * @param unhealthyEdgeInterval the first interval after a host became unhealthy
   * @param healthyEdgeInterval the first interval after a host became healthy
   * @param noTrafficInterval the interval while the cluster has taken no request yet
   * @param noTrafficHealthyInterval that interval for a healthy host
   * @param reuseConnection keep the check's connection open between checks (Envoy default true)
   * @param probe what one check does
   */
  public record HealthCheck(Duration timeout, Duration interval, Duration initialJitter, Duration intervalJitter,
      int intervalJitterPercent, int unhealthyThreshold, int healthyThreshold, Duration unhealthyInterval,
      Duration unhealthyEdgeInterval, Duration healthyEdgeInterval, Duration noTrafficInterval,
      Duration noTrafficHealthyInterval, boolean reuseConnection, Probe probe) {}

  /** What one check does. */
  public sealed interface Probe permits HttpProbe, TcpProbe {}

  /**
   * {@code http_health_check}: a request whose response status must be expected.
   *
   * @param host the authority sent ({@code host}, else the cluster's name)
   * @param path the request path
   * @param method the request method (GET unless set)
   * @param http2 whether the check speaks HTTP/2 (prior knowledge) rather than HTTP/1.1
   * @param headers {@code request_headers_to_add} / {@code request_headers_to_remove}
   * @param expectedStatuses half-open ranges of statuses that pass ([200, 201) unless set)
   * @param retriableStatuses half-open ranges of statuses that fail only after the threshold
   */
  public record HttpProbe(String host, String path, String method, boolean http2, HeaderMutations headers,
      List<StatusRange> expectedStatuses, List<StatusRange> retriableStatuses) implements Probe {
    public HttpProbe {
      expectedStatuses = List.copyOf(expectedStatuses);
      retriableStatuses = List.copyOf(retriableStatuses);
    }

    public boolean expected(int status) {
      return StatusRange.contains(expectedStatuses, status);
    }

    public boolean retriable(int status) {
      return StatusRange.contains(retriableStatuses, status);
    }
  }

  /** A half-open range of HTTP statuses [start, end). */
  public record StatusRange(int start, int end) {
    static boolean contains(List<StatusRange> ranges, int status) {
      for (StatusRange r : ranges) {
        if (status >= r.start && status < r.end) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * {@code tcp_health_check}: connect; then, if {@code send} is not empty, write it, and pass once
   * every {@code receive} payload has been read, in order (Envoy's fuzzy match). With neither, a
   * connect that succeeds passes.
   */
  public record TcpProbe(byte[] send, List<byte[]> receive) implements Probe {
    public TcpProbe {
      send = send.clone();
      receive = receive.stream().map(byte[]::clone).toList();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof TcpProbe t && java.util.Arrays.equals(send, t.send)
          && receive.size() == t.receive.size()
          && java.util.stream.IntStream.range(0, receive.size())
              .allMatch(i -> java.util.Arrays.equals(receive.get(i), t.receive.get(i)));
    }

    @Override
    public int hashCode() {
      int h = java.util.Arrays.hashCode(send);
      for (byte[] r : receive) {
        h = 31 * h + java.util.Arrays.hashCode(r);
      }
      return h;
    }

    @Override
    public String toString() {
      return "TcpProbe[send=" + send.length + " bytes, receive=" + receive.size() + " payloads]";
    }
  }

  /**
   * One {@code envoy.config.cluster.v3.OutlierDetection}; percentages are 0..100.
   *
   * @param interval how often ejections are reviewed and success rates computed (default 10 s)
   * @param baseEjectionTime an ejection lasts this × the host's ejection count (default 30 s)
   * @param maxEjectionTime the longest ejection (default 300 s)
   * @param maxEjectionPercent the most of the cluster ejected at once (default 10; one host always may be)
   * @param splitExternalLocalOriginErrors whether connect failures, resets and timeouts count
   *     apart from the upstream's 5xx answers
   * @param maxEjectionTimeJitter a random time in [0, jitter) added to each ejection
   * @param unejectOnHealthCheckPass whether a passed active health check ends an ejection
   *     ({@code successful_active_health_check_uneject_host})
   * @param alwaysEjectOneHost whether one host may be ejected even when that passes
   *     {@code max_ejection_percent}
   */
  public record Outlier(Duration interval, Duration baseEjectionTime, Duration maxEjectionTime,
      int maxEjectionPercent, boolean splitExternalLocalOriginErrors,
      int consecutive5xx, int enforcingConsecutive5xx,
      int consecutiveGatewayFailure, int enforcingConsecutiveGatewayFailure,
      int consecutiveLocalOriginFailure, int enforcingConsecutiveLocalOriginFailure,
      int enforcingSuccessRate, int enforcingLocalOriginSuccessRate, int successRateMinimumHosts,
      int successRateRequestVolume, int successRateStdevFactor,
      int failurePercentageThreshold, int enforcingFailurePercentage, int enforcingFailurePercentageLocalOrigin,
      int failurePercentageMinimumHosts, int failurePercentageRequestVolume, Duration maxEjectionTimeJitter,
      boolean unejectOnHealthCheckPass, boolean alwaysEjectOneHost) {

    /** Envoy's defaults for every field. */
    public static final Outlier DEFAULTS = new Outlier(Duration.ofSeconds(10), Duration.ofSeconds(30),
        Duration.ofSeconds(300), 10, false, 5, 100, 5, 0, 5, 100, 100, 100, 5, 100, 1900, 85, 0, 0, 5, 50, Duration.ZERO, false, false);
  }
}
