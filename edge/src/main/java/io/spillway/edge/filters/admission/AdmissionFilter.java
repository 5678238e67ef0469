package io.spillway.edge.filters.admission;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.admission.AdmissionPermit;
import io.spillway.edge.admission.Tier;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;

/**
 * Inbound admission (SPEC §3.2) as the first stage of every chain: a request the route forwards
 * takes a permit of its route's tier ({@code spillway.admission.tier} metadata) before any
 * configured filter runs, or is refused with 503, {@code Retry-After} and flag {@code AR}. The
 * permit goes back exactly once when the stream ends, with its duration and whether it succeeded
 * (status below 500, neither client nor upstream reset); a WebSocket or CONNECT tunnel gives it back
 * as soon as it is open. Direct responses, redirects and requests
 * without a route are not admission-controlled: they cost the edge nothing upstream.
 *
 * <p>It is built in rather than listed in {@code http_filters} because the overload policy, not the
 * listener, configures it, and it must see a request before ext_authz spends a call on it.
 */
public final class AdmissionFilter implements DecoderFilter {
  private static final int FAILURE_FLAGS = ResponseFlag.DC.bit() | ResponseFlag.UR.bit();

  private final AdmissionController admission;
  private DecoderFilterCallbacks callbacks;
  private AdmissionPermit permit;

  AdmissionFilter(AdmissionController admission) {
    this.admission = admission;
  }

  /** The factory: one shared controller, one cheap filter per request. */
  public static HttpFilterFactory factory(AdmissionController admission) {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return "spillway.filters.http.admission";
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        chain.addDecoderFilter(new AdmissionFilter(admission));
      }
    };
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.callbacks = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    RouteEntry route = callbacks.route();
    if (route == null || route.routeAction() == null) {
      return FilterHeadersStatus.CONTINUE;
    }
    AdmissionPermit p = admission.tryAcquire(Tier.fromMetadata(route.metadata(Tier.METADATA_KEY)));
    if (p.refused()) {
      callbacks.sendLocalReply(503, "overloaded, retry later", ResponseFlag.AR,
          h -> h.setInt(HttpHeaderNames.RETRY_AFTER, admission.retryAfterSeconds()));
      return FilterHeadersStatus.STOP_ITERATION;
    }
    permit = p;
    StreamInfo info = callbacks.streamInfo();
    if (info.upgrade() != null) {
      info.onTunnelOpen(this::releaseAtTunnelOpen);
    }
    return FilterHeadersStatus.CONTINUE;
  }

  /**
   * A WebSocket or CONNECT tunnel gives its permit back once it is open, with the time to open it
   * as its call time: it may stay open for hours, and holding a permit that long would let a few
   * hundred tunnels take the whole limit and teach the learner hour-long calls.
   */
  private void releaseAtTunnelOpen() {
    if (permit != null) {
      permit.release(System.nanoTime() - callbacks.streamInfo().startNanos(), true);
      permit = null;
    }
  }

  @Override
  public void onDestroy() {
    if (permit != null) {
      StreamInfo info = callbacks.streamInfo();
      int status = info.responseCode();
      boolean success = status > 0 && status < 500 && (info.responseFlags() & FAILURE_FLAGS) == 0;
      permit.release(System.nanoTime() - info.startNanos(), success);
      permit = null;
    }
  }
}
