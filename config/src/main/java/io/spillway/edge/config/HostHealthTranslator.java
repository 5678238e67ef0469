package io.spillway.edge.config;

import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.OutlierDetection;
import io.envoyproxy.envoy.config.core.v3.HealthCheck;
import io.envoyproxy.envoy.type.v3.Int64Range;
import io.envoyproxy.envoy.type.v3.Percent;
import io.spillway.edge.config.HostHealthConfig.HttpProbe;
import io.spillway.edge.config.HostHealthConfig.Outlier;
import io.spillway.edge.config.HostHealthConfig.Probe;
import io.spillway.edge.config.HostHealthConfig.StatusRange;
import io.spillway.edge.config.HostHealthConfig.TcpProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A cluster's {@code health_checks}, {@code outlier_detection} and
 * {@code common_lb_config.healthy_panic_threshold} → {@link HostHealthConfig}, with Envoy's
 * defaults and proto validation rules. What would change behaviour and is not implemented (gRPC
 * and custom checkers, TLS options, event sinks, other ports, outlier monitors) is rejected with
 * its path; {@code always_log_health_check_failures} and {@code always_log_health_check_success}
 * only choose what is logged and are accepted.
 */
final class HostHealthTranslator {

  private static final SupportedFields HEALTH_CHECK = SupportedFields.of(HealthCheck.getDescriptor(),
      "timeout", "interval", "initial_jitter", "interval_jitter", "interval_jitter_percent", "unhealthy_threshold",
      "healthy_threshold", "reuse_connection", "http_health_check", "tcp_health_check", "no_traffic_interval",
      "no_traffic_healthy_interval", "unhealthy_interval", "unhealthy_edge_interval", "healthy_edge_interval",
      "always_log_health_check_failures", "always_log_health_check_success");
  private static final SupportedFields HTTP = SupportedFields.of(HealthCheck.HttpHealthCheck.getDescriptor(),
      "host", "path", "request_headers_to_add", "request_headers_to_remove", "expected_statuses",
      "retriable_statuses", "codec_client_type", "method");
  private static final SupportedFields TCP = SupportedFields.of(HealthCheck.TcpHealthCheck.getDescriptor(),
      "send", "receive");
  private static final SupportedFields OUTLIER = SupportedFields.of(OutlierDetection.getDescriptor(),
      "consecutive_5xx", "interval", "base_ejection_time", "max_ejection_percent", "enforcing_consecutive_5xx",
      "enforcing_success_rate", "success_rate_minimum_hosts", "success_rate_request_volume",
      "success_rate_stdev_factor", "consecutive_gateway_failure", "enforcing_consecutive_gateway_failure",
      "split_external_local_origin_errors", "consecutive_local_origin_failure",
      "enforcing_consecutive_local_origin_failure", "enforcing_local_origin_success_rate",
      "failure_percentage_threshold", "enforcing_failure_percentage", "enforcing_failure_percentage_local_origin",
      "failure_percentage_minimum_hosts", "failure_percentage_request_volume", "max_ejection_time",
      "max_ejection_time_jitter", "successful_active_health_check_uneject_host", "always_eject_one_host");
  // The locality specifiers are read (or refused) by LoadBalancingTranslator, which runs first.
  private static final SupportedFields COMMON_LB = SupportedFields.of(Cluster.CommonLbConfig.getDescriptor(),
      "healthy_panic_threshold", "locality_weighted_lb_config", "zone_aware_lb_config");

  private static final Duration DEFAULT_NO_TRAFFIC_INTERVAL = Duration.ofSeconds(60);

  private HostHealthTranslator() {}

  static HostHealthConfig translate(Cluster c, FieldPath path) throws ConfigException {
    Optional<HostHealthConfig.HealthCheck> check = Optional.empty();
    if (c.getHealthChecksCount() > 1) {
      throw new ConfigException(path.field("health_checks").index(1), "only one health check per cluster is supported");
    }
    if (c.getHealthChecksCount() == 1) {
      check = Optional.of(healthCheck(c.getHealthChecks(0), path.field("health_checks").index(0), c.getName()));
    }
    Optional<Outlier> outlier = c.hasOutlierDetection()
        ? Optional.of(outlier(c.getOutlierDetection(), path.field("outlier_detection")))
        : Optional.empty();
    double panic = 50.0;
    if (c.hasCommonLbConfig()) {
      FieldPath lbPath = path.field("common_lb_config");
      COMMON_LB.check(c.getCommonLbConfig(), lbPath);
      if (c.getCommonLbConfig().hasHealthyPanicThreshold()) {
        panic = percent(c.getCommonLbConfig().getHealthyPanicThreshold(), lbPath.field("healthy_panic_threshold"));
      }
    }
    return new HostHealthConfig(check, outlier, panic);
  }

  private static double percent(Percent p, FieldPath path) throws ConfigException {
    if (!(p.getValue() >= 0 && p.getValue() <= 100)) {
      throw new ConfigException(path.field("value"), "must be between 0 and 100");
    }
    return p.getValue();
  }

  static HostHealthConfig.HealthCheck healthCheck(HealthCheck h, FieldPath path, String clusterName)
      throws ConfigException {
    HEALTH_CHECK.check(h, path);
    Duration timeout = required(h.hasTimeout(), h.getTimeout(), path.field("timeout"));
    Duration interval = required(h.hasInterval(), h.getInterval(), path.field("interval"));
    Duration initialJitter = ProtoValues.duration(h.hasInitialJitter(), h.getInitialJitter(),
        path.field("initial_jitter"), Duration.ZERO);
    Duration intervalJitter = ProtoValues.duration(h.hasIntervalJitter(), h.getIntervalJitter(),
        path.field("interval_jitter"), Duration.ZERO);
    int jitterPercent = ProtoValues.uint32(h.getIntervalJitterPercent(), path.field("interval_jitter_percent"), 0);
    if (!h.hasUnhealthyThreshold()) {
      throw new ConfigException(path.field("unhealthy_threshold"), "unhealthy_threshold is required");
    }
    if (!h.hasHealthyThreshold()) {
      throw new ConfigException(path.field("healthy_threshold"), "healthy_threshold is required");
    }
    // Envoy treats a threshold of 0 as 1.
    int unhealthy = Math.max(1, ProtoValues.uint32(h.getUnhealthyThreshold().getValue(),
        path.field("unhealthy_threshold"), 0));
    int healthy = Math.max(1, ProtoValues.uint32(h.getHealthyThreshold().getValue(),
        path.field("healthy_threshold"), 0));
    Duration unhealthyInterval = ProtoValues.positiveDuration(h.hasUnhealthyInterval(), h.getUnhealthyInterval(),
        path.field("unhealthy_interval"), interval);
    Duration unhealthyEdge = ProtoValues.positiveDuration(h.hasUnhealthyEdgeInterval(), h.getUnhealthyEdgeInterval(),
        path.field("unhealthy_edge_interval"), unhealthyInterval);
    Duration healthyEdge = ProtoValues.positiveDuration(h.hasHealthyEdgeInterval(), h.getHealthyEdgeInterval(),
        path.field("healthy_edge_interval"), interval);
    Duration noTraffic = ProtoValues.positiveDuration(h.hasNoTrafficInterval(), h.getNoTrafficInterval(),
        path.field("no_traffic_interval"), DEFAULT_NO_TRAFFIC_INTERVAL);
    Duration noTrafficHealthy = ProtoValues.positiveDuration(h.hasNoTrafficHealthyInterval(),
        h.getNoTrafficHealthyInterval(), path.field("no_traffic_healthy_interval"), noTraffic);
    boolean reuse = !h.hasReuseConnection() || h.getReuseConnection().getValue();
    Probe probe = switch (h.getHealthCheckerCase()) {
      case HTTP_HEALTH_CHECK -> http(h.getHttpHealthCheck(), path.field("http_health_check"), clusterName);
      case TCP_HEALTH_CHECK -> tcp(h.getTcpHealthCheck(), path.field("tcp_health_check"));
      default -> throw new ConfigException(path, "one of http_health_check or tcp_health_check is required");
    };
    return new HostHealthConfig.HealthCheck(timeout, interval, initialJitter, intervalJitter, jitterPercent,
        unhealthy, healthy, unhealthyInterval, unhealthyEdge, healthyEdge, noTraffic, noTrafficHealthy, reuse, probe);
  }

  private static Duration required(boolean has, com.google.protobuf.Duration value, FieldPath path)
      throws ConfigException {
    if (!has) {
      throw new ConfigException(path, path.toString().substring(path.toString().lastIndexOf('.') + 1)
          + " is required");
    }
    return ProtoValues.positiveDuration(true, value, path, Duration.ZERO);
  }

  private static HttpProbe http(HealthCheck.HttpHealthCheck http, FieldPath path, String clusterName)
      throws ConfigException {
    HTTP.check(http, path);
    String p = http.getPath();
    if (p.isEmpty()) {
      throw new ConfigException(path.field("path"), "path is required");
    }
    if (!p.startsWith("/") || p.chars().anyMatch(ch -> ch <= ' ' || ch == 0x7f)) {
      throw new ConfigException(path.field("path"), "must be an origin-form path (starting with /, no spaces)");
    }
    String host = http.getHost().isEmpty() ? clusterName : http.getHost();
    if (host.chars().anyMatch(ch -> ch <= ' ' || ch == 0x7f)) {
      throw new ConfigException(path.field("host"), "must not contain spaces or control characters");
    }
    boolean http2 = switch (http.getCodecClientType()) {
      case HTTP1 -> false;
      case HTTP2 -> true;
      default -> throw new ConfigException(path.field("codec_client_type"),
          http.getCodecClientType() + " is not supported (HTTP1 or HTTP2)");
    };
    String method = switch (http.getMethod()) {
      case METHOD_UNSPECIFIED, GET -> "GET";
      case CONNECT -> throw new ConfigException(path.field("method"), "CONNECT is not allowed for health checks");
      case UNRECOGNIZED -> throw new ConfigException(path.field("method"), "unknown method");
      default -> http.getMethod().name();
    };
    HeaderMutations headers = HeaderMutationTranslator.translate(http.getRequestHeadersToAddList(),
        http.getRequestHeadersToRemoveList(), HeaderMutationTranslator.Direction.REQUEST, path);
    List<StatusRange> expected = ranges(http.getExpectedStatusesList(), path.field("expected_statuses"));
    if (expected.isEmpty()) {
      expected = List.of(new StatusRange(200, 201));
    }
    List<StatusRange> retriable = ranges(http.getRetriableStatusesList(), path.field("retriable_statuses"));
    return new HttpProbe(host, p, method, http2, headers, expected, retriable);
  }

  private static List<StatusRange> ranges(List<Int64Range> ranges, FieldPath path) throws ConfigException {
    List<StatusRange> out = new ArrayList<>();
    for (int i = 0; i < ranges.size(); i++) {
      Int64Range r = ranges.get(i);
      FieldPath rPath = path.index(i);
      if (r.getStart() < 100 || r.getStart() >= 600) {
        throw new ConfigException(rPath.field("start"), "must be a status in [100, 600)");
      }
      if (r.getEnd() <= r.getStart() || r.getEnd() > 600) {
        throw new ConfigException(rPath.field("end"), "must be greater than start and at most 600 (the end is exclusive)");
      }
      out.add(new StatusRange((int) r.getStart(), (int) r.getEnd()));
    }
    return out;
  }

  private static TcpProbe tcp(HealthCheck.TcpHealthCheck tcp, FieldPath path) throws ConfigException {
    TCP.check(tcp, path);
    byte[] send = tcp.hasSend() ? payload(tcp.getSend(), path.field("send")) : new byte[0];
    List<byte[]> receive = new ArrayList<>();
    for (int i = 0; i < tcp.getReceiveCount(); i++) {
      receive.add(payload(tcp.getReceive(i), path.field("receive").index(i)));
    }
    return new TcpProbe(send, receive);
  }

  private static byte[] payload(HealthCheck.Payload p, FieldPath path) throws ConfigException {
    return switch (p.getPayloadCase()) {
      case TEXT -> {
        try {
          byte[] bytes = HexFormat.of().parseHex(p.getText());
          if (bytes.length == 0) {
            throw new ConfigException(path.field("text"), "must not be empty");
          }
          yield bytes;
        } catch (IllegalArgumentException e) {
          throw new ConfigException(path.field("text"), "must be hex-encoded bytes: " + e.getMessage());
        }
      }
      case BINARY -> {
        if (p.getBinary().isEmpty()) {
          throw new ConfigException(path.field("binary"), "must not be empty");
        }
        yield p.getBinary().toByteArray();
      }
      default -> throw new ConfigException(path, "one of text or binary is required");
    };
  }

  static Outlier outlier(OutlierDetection o, FieldPath path) throws ConfigException {
    OUTLIER.check(o, path);
    Outlier d = Outlier.DEFAULTS;
    Duration interval = ProtoValues.positiveDuration(o.hasInterval(), o.getInterval(), path.field("interval"),
        d.interval());
    Duration base = ProtoValues.positiveDuration(o.hasBaseEjectionTime(), o.getBaseEjectionTime(),
        path.field("base_ejection_time"), d.baseEjectionTime());
    Duration max = ProtoValues.positiveDuration(o.hasMaxEjectionTime(), o.getMaxEjectionTime(),
        path.field("max_ejection_time"), d.maxEjectionTime());
    Duration jitter = ProtoValues.duration(o.hasMaxEjectionTimeJitter(), o.getMaxEjectionTimeJitter(),
        path.field("max_ejection_time_jitter"), Duration.ZERO);
    return new Outlier(interval, base, max,
        pct(o.hasMaxEjectionPercent(), o.getMaxEjectionPercent(), path.field("max_ejection_percent"),
            d.maxEjectionPercent()),
        o.getSplitExternalLocalOriginErrors(),
        count(o.hasConsecutive5Xx(), o.getConsecutive5Xx(), path.field("consecutive_5xx"), d.consecutive5xx()),
        pct(o.hasEnforcingConsecutive5Xx(), o.getEnforcingConsecutive5Xx(), path.field("enforcing_consecutive_5xx"),
            d.enforcingConsecutive5xx()),
        count(o.hasConsecutiveGatewayFailure(), o.getConsecutiveGatewayFailure(),
            path.field("consecutive_gateway_failure"), d.consecutiveGatewayFailure()),
        pct(o.hasEnforcingConsecutiveGatewayFailure(), o.getEnforcingConsecutiveGatewayFailure(),
            path.field("enforcing_consecutive_gateway_failure"), d.enforcingConsecutiveGatewayFailure()),
        count(o.hasConsecutiveLocalOriginFailure(), o.getConsecutiveLocalOriginFailure(),
            path.field("consecutive_local_origin_failure"), d.consecutiveLocalOriginFailure()),
        pct(o.hasEnforcingConsecutiveLocalOriginFailure(), o.getEnforcingConsecutiveLocalOriginFailure(),
            path.field("enforcing_consecutive_local_origin_failure"), d.enforcingConsecutiveLocalOriginFailure()),
        pct(o.hasEnforcingSuccessRate(), o.getEnforcingSuccessRate(), path.field("enforcing_success_rate"),
            d.enforcingSuccessRate()),
        pct(o.hasEnforcingLocalOriginSuccessRate(), o.getEnforcingLocalOriginSuccessRate(),
            path.field("enforcing_local_origin_success_rate"), d.enforcingLocalOriginSuccessRate()),
        count(o.hasSuccessRateMinimumHosts(), o.getSuccessRateMinimumHosts(), path.field("success_rate_minimum_hosts"),
            d.successRateMinimumHosts()),
        count(o.hasSuccessRateRequestVolume(), o.getSuccessRateRequestVolume(),
            path.field("success_rate_request_volume"), d.successRateRequestVolume()),
        count(o.hasSuccessRateStdevFactor(), o.getSuccessRateStdevFactor(), path.field("success_rate_stdev_factor"),
            d.successRateStdevFactor()),
        pct(o.hasFailurePercentageThreshold(), o.getFailurePercentageThreshold(),
            path.field("failure_percentage_threshold"), d.failurePercentageThreshold()),
        pct(o.hasEnforcingFailurePercentage(), o.getEnforcingFailurePercentage(),
            path.field("enforcing_failure_percentage"), d.enforcingFailurePercentage()),
        pct(o.hasEnforcingFailurePercentageLocalOrigin(), o.getEnforcingFailurePercentageLocalOrigin(),
            path.field("enforcing_failure_percentage_local_origin"), d.enforcingFailurePercentageLocalOrigin()),
        count(o.hasFailurePercentageMinimumHosts(), o.getFailurePercentageMinimumHosts(),
            path.field("failure_percentage_minimum_hosts"), d.failurePercentageMinimumHosts()),
        count(o.hasFailurePercentageRequestVolume(), o.getFailurePercentageRequestVolume(),
            path.field("failure_percentage_request_volume"), d.failurePercentageRequestVolume()),
        jitter,
        o.hasSuccessfulActiveHealthCheckUnejectHost() && o.getSuccessfulActiveHealthCheckUnejectHost().getValue(),
        o.hasAlwaysEjectOneHost() && o.getAlwaysEjectOneHost().getValue());
  }

  private static int pct(boolean has, UInt32Value v, FieldPath path, int fallback) throws ConfigException {
    int value = ProtoValues.uint32(has, v, path, 0, fallback);
    if (value > 100) {
      throw new ConfigException(path, "must be a percentage between 0 and 100");
    }
    return value;
  }

  private static int count(boolean has, UInt32Value v, FieldPath path, int fallback) throws ConfigException {
    return ProtoValues.uint32(has, v, path, 0, fallback);
  }
}
