package io.spillway.edge.accesslog;

import io.spillway.edge.http.filter.ResponseFlag;

/** Envoy's long response flag names ({@code %RESPONSE_FLAGS_LONG%}) for the flags the edge sets. */
final class ResponseFlagNames {

  private ResponseFlagNames() {}

  static String longName(ResponseFlag f) {
    return switch (f) {
      case UH -> "NoHealthyUpstream";
      case RL -> "RateLimited";
      case RLSE -> "RateLimitServiceError";
      case UF -> "UpstreamConnectionFailure";
      case UO -> "UpstreamOverflow";
      case UT -> "UpstreamRequestTimeout";
      case UR -> "UpstreamRemoteReset";
      case URX -> "UpstreamRetryLimitExceeded";
      case NR -> "NoRouteFound";
      case NC -> "NoClusterFound";
      case DC -> "DownstreamConnectionTermination";
      case LR -> "LocalReset";
      case SI -> "StreamIdleTimeout";
      case DPE -> "DownstreamProtocolError";
      case OM -> "OverloadManagerTerminated";
      case UAEX -> "UnauthorizedExternalService";
      case AR -> "AdmissionRefused";
      case GR -> "OutboundGuardRefused";
      case DI -> "DelayInjected";
      case FI -> "FaultInjected";
      case DT -> "DurationTimeout";
    };
  }

  /** The long names joined by commas, "-" when none. */
  static String formatLong(int flags) {
    if (flags == 0) {
      return "-";
    }
    StringBuilder sb = new StringBuilder();
    for (ResponseFlag f : ResponseFlag.values()) {
      if ((flags & f.bit()) != 0) {
        if (!sb.isEmpty()) {
          sb.append(',');
        }
        sb.append(longName(f));
      }
    }
    return sb.toString();
  }
}
