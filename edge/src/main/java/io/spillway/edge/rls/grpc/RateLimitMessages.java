package io.spillway.edge.rls.grpc;

import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.rls.RateLimitAnswer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ShouldRateLimit}'s messages: a {@link io.spillway.edge.rls.RateLimitRequest} → the proto
 * request, the proto response → a {@link RateLimitAnswer} (Envoy's {@code GrpcClientImpl::onSuccess}).
 */
final class RateLimitMessages {

  private RateLimitMessages() {}

  static RateLimitRequest request(io.spillway.edge.rls.RateLimitRequest request) {
    RateLimitRequest.Builder out = RateLimitRequest.newBuilder().setDomain(request.domain());
    for (List<RateLimitPolicy.Entry> descriptor : request.descriptors()) {
      RateLimitDescriptor.Builder d = out.addDescriptorsBuilder();
      for (RateLimitPolicy.Entry e : descriptor) {
        d.addEntriesBuilder().setKey(e.key()).setValue(e.value());
      }
    }
    return out.build();
  }

  static RateLimitAnswer answer(RateLimitResponse response) {
    RateLimitAnswer.Code code = switch (response.getOverallCode()) {
      case OK -> RateLimitAnswer.Code.OK;
      case OVER_LIMIT -> RateLimitAnswer.Code.OVER_LIMIT;
      default -> null;
    };
    if (code == null) {
      return RateLimitAnswer.error("the service answered " + response.getOverallCode(), false);
    }
    List<RateLimitAnswer.DescriptorStatus> statuses = new ArrayList<>(response.getStatusesCount());
    for (RateLimitResponse.DescriptorStatus s : response.getStatusesList()) {
      RateLimitResponse.RateLimit limit = s.getCurrentLimit();
      statuses.add(new RateLimitAnswer.DescriptorStatus(s.hasCurrentLimit(),
          Integer.toUnsignedLong(limit.getRequestsPerUnit()), unitSeconds(limit.getUnit()), limit.getName(),
          Integer.toUnsignedLong(s.getLimitRemaining()), s.getDurationUntilReset().getSeconds()));
    }
    return new RateLimitAnswer(code, headers(response.getRequestHeadersToAddList()),
        headers(response.getResponseHeadersToAddList()), statuses,
        response.getRawBody().toString(StandardCharsets.UTF_8), "", false);
  }

  /** Envoy's {@code convertRateLimitUnit}: a unit's seconds, 0 for one it does not know. */
  static long unitSeconds(RateLimitResponse.RateLimit.Unit unit) {
    return switch (unit) {
      case SECOND -> 1;
      case MINUTE -> 60;
      case HOUR -> 3600;
      case DAY -> 86_400;
      case WEEK -> 604_800;
      case MONTH -> 2_592_000;
      case YEAR -> 31_536_000;
      default -> 0;
    };
  }

  private static List<RateLimitAnswer.Header> headers(List<HeaderValue> values) {
    List<RateLimitAnswer.Header> out = new ArrayList<>(values.size());
    for (HeaderValue h : values) {
      String value = h.getValue().isEmpty() && !h.getRawValue().isEmpty()
          ? h.getRawValue().toString(StandardCharsets.UTF_8) : h.getValue();
      out.add(new RateLimitAnswer.Header(h.getKey(), value));
    }
    return out;
  }
}
