package io.spillway.edge.config;

import io.envoyproxy.envoy.extensions.filters.common.fault.v3.FaultDelay;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.FaultAbort;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code envoy.filters.http.fault} ({@code HTTPFault}) into {@link FaultConfig}, with Envoy's
 * validation rules. The response rate limit and {@code filter_metadata} are refused: both change
 * what the filter does and are not implemented.
 */
final class FaultTranslator {

  private static final SupportedFields FAULT = SupportedFields.of(HTTPFault.getDescriptor(), "delay", "abort",
      "upstream_cluster", "headers", "downstream_nodes", "max_active_faults", "delay_percent_runtime",
      "abort_percent_runtime", "delay_duration_runtime", "abort_http_status_runtime", "max_active_faults_runtime",
      "abort_grpc_status_runtime", "disable_downstream_cluster_stats");
  private static final SupportedFields DELAY = SupportedFields.of(FaultDelay.getDescriptor(), "fixed_delay",
      "header_delay", "percentage");
  private static final SupportedFields ABORT = SupportedFields.of(FaultAbort.getDescriptor(), "http_status",
      "grpc_status", "header_abort", "percentage");

  private FaultTranslator() {}

  static FaultConfig translate(HTTPFault f, FieldPath path) throws ConfigException {
    FAULT.check(f, path);
    Optional<FaultConfig.Delay> delay = f.hasDelay() ? Optional.of(delay(f.getDelay(), path.field("delay")))
        : Optional.empty();
    Optional<FaultConfig.Abort> abort = f.hasAbort() ? Optional.of(abort(f.getAbort(), path.field("abort")))
        : Optional.empty();
    List<Route.HeaderMatch> headers = new ArrayList<>();
    for (int i = 0; i < f.getHeadersCount(); i++) {
      headers.add(MatchTranslator.header(f.getHeaders(i), path.field("headers").index(i)));
    }
    Set<String> nodes = new LinkedHashSet<>(f.getDownstreamNodesList());
    OptionalInt maxActive = f.hasMaxActiveFaults()
        ? OptionalInt.of(f.getMaxActiveFaults().getValue() < 0 ? Integer.MAX_VALUE : f.getMaxActiveFaults().getValue())
        : OptionalInt.empty();
    FaultConfig.RuntimeKeys d = FaultConfig.RuntimeKeys.DEFAULTS;
    FaultConfig.RuntimeKeys keys = new FaultConfig.RuntimeKeys(
        or(f.getDelayPercentRuntime(), d.delayPercent()), or(f.getAbortPercentRuntime(), d.abortPercent()),
        or(f.getDelayDurationRuntime(), d.delayDurationMillis()), or(f.getAbortHttpStatusRuntime(), d.abortHttpStatus()),
        or(f.getAbortGrpcStatusRuntime(), d.abortGrpcStatus()), or(f.getMaxActiveFaultsRuntime(), d.maxActiveFaults()));
    return new FaultConfig(delay, abort, f.getUpstreamCluster(), headers, nodes, maxActive, keys);
  }

  private static FaultConfig.Delay delay(FaultDelay d, FieldPath path) throws ConfigException {
    DELAY.check(d, path);
    int percent = RuntimeTranslator.perMillion(d.getPercentage(), path.field("percentage"));
    return switch (d.getFaultDelaySecifierCase()) {
      case FIXED_DELAY -> {
        Duration fixed = ProtoValues.duration(true, d.getFixedDelay(), path.field("fixed_delay"), Duration.ZERO);
        if (fixed.isZero()) {
          throw new ConfigException(path.field("fixed_delay"), "must be greater than 0");
        }
        yield new FaultConfig.Delay(Optional.of(fixed), percent, unit(d.getPercentage()));
      }
      case HEADER_DELAY -> new FaultConfig.Delay(Optional.empty(), percent, unit(d.getPercentage()));
      default -> throw new ConfigException(path, "one of fixed_delay or header_delay is required");
    };
  }

  private static FaultConfig.Abort abort(FaultAbort a, FieldPath path) throws ConfigException {
    ABORT.check(a, path);
    int percent = RuntimeTranslator.perMillion(a.getPercentage(), path.field("percentage"));
    return switch (a.getErrorTypeCase()) {
      case HTTP_STATUS -> {
        int status = a.getHttpStatus();
        if (status < 200 || status >= 600) {
          throw new ConfigException(path.field("http_status"), "must be in [200, 600), not " + Integer.toUnsignedString(status));
        }
        yield new FaultConfig.HttpAbort(status, percent);
      }
      case GRPC_STATUS -> new FaultConfig.GrpcAbort(a.getGrpcStatus(), percent);
      case HEADER_ABORT -> new FaultConfig.HeaderAbort(percent, unit(a.getPercentage()));
      default -> throw new ConfigException(path, "one of http_status, grpc_status or header_abort is required");
    };
  }

  /** Parts per million of one unit of the percentage's denominator (checked by perMillion first). */
  private static int unit(io.envoyproxy.envoy.type.v3.FractionalPercent p) {
    return switch (p.getDenominator()) {
      case TEN_THOUSAND -> 100;
      case MILLION -> 1;
      default -> 10_000;
    };
  }

  private static String or(String value, String fallback) {
    return value.isEmpty() ? fallback : value;
  }
}
