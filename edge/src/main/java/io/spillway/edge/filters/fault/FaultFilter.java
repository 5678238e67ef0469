package io.spillway.edge.filters.fault;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.FaultConfig;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.router.RouteMatcher;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * One request's fault injection (Envoy's {@code FaultFilter}). When the request meets the
 * filter's conditions (headers, upstream cluster, downstream node) and a place under
 * {@code max_active_faults} is free, it is first delayed — a timer on the request's worker, the
 * request held (its body buffered by the chain) — and then, or at once, aborted with a local
 * reply: the configured HTTP status, or a gRPC trailers-only answer with {@code grpc-status}. Each
 * fault is drawn with the worker's random source against its percentage, which the runtime may
 * override; header-controlled faults read Envoy's {@code x-envoy-fault-*} request headers.
 * Response flags: {@code DI} for a delay, {@code FI} for an abort.
 */
final class FaultFilter implements DecoderFilter {
  static final String DELAY_HEADER = "x-envoy-fault-delay-request";
  static final String DELAY_PERCENTAGE_HEADER = "x-envoy-fault-delay-request-percentage";
  static final String ABORT_HEADER = "x-envoy-fault-abort-request";
  static final String ABORT_GRPC_HEADER = "x-envoy-fault-abort-grpc-request";
  static final String ABORT_PERCENTAGE_HEADER = "x-envoy-fault-abort-request-percentage";
  static final String DOWNSTREAM_NODE_HEADER = "x-envoy-downstream-service-node";
  static final String ABORT_BODY = "fault filter abort";

  private final FaultFactory factory;
  private DecoderFilterCallbacks decoder;
  private ScheduledFuture<?> delayTimer;
  private boolean inFault;
  /** The abort decided for this request: an HTTP status, or -1. */
  private int abortStatus = -1;
  /** The abort decided for this request: a gRPC status, or -1. */
  private int abortGrpcStatus = -1;

  FaultFilter(FaultFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    RouteEntry route = decoder.route();
    FaultConfig config = factory.configFor(route);
    if (config == null || !applies(config, headers, route)) {
      return FilterHeadersStatus.CONTINUE;
    }
    RuntimeSnapshot runtime = factory.runtime();
    RandomGenerator random = decoder.worker().random();
    long delayMillis = config.delay().isPresent() ? delayMillis(config, config.delay().get(), headers, runtime, random) : 0;
    config.abort().ifPresent(a -> decideAbort(config, a, headers, runtime, random));
    if (delayMillis <= 0 && abortStatus < 0 && abortGrpcStatus < 0) {
      return FilterHeadersStatus.CONTINUE;
    }
    long maxActive = runtime.getInteger(config.runtime().maxActiveFaults(),
        config.maxActiveFaults().isPresent() ? config.maxActiveFaults().getAsInt() : Long.MAX_VALUE);
    if (!factory.enterFault(maxActive)) {
      return FilterHeadersStatus.CONTINUE;
    }
    inFault = true;
    if (delayMillis > 0) {
      factory.delaysInjected.inc();
      decoder.streamInfo().setResponseFlag(ResponseFlag.DI);
      delayTimer = decoder.worker().loop().schedule(this::afterDelay, delayMillis, TimeUnit.MILLISECONDS);
      return FilterHeadersStatus.STOP_ITERATION;
    }
    abort();
    return FilterHeadersStatus.STOP_ITERATION;
  }

  private void afterDelay() {
    delayTimer = null;
    if (abortStatus >= 0 || abortGrpcStatus >= 0) {
      abort();
    } else {
      decoder.continueDecoding();
    }
  }

  private void abort() {
    factory.abortsInjected.inc();
    if (abortGrpcStatus >= 0) {
      HttpHeaders h = new DefaultHttpHeaders();
      h.set(HttpHeaderNames.CONTENT_TYPE, "application/grpc");
      h.set("grpc-status", Integer.toString(abortGrpcStatus));
      h.set("grpc-message", ABORT_BODY);
      decoder.sendLocalReply(new ResponseHeaders(200, h), null, ResponseFlag.FI);
    } else {
      decoder.sendLocalReply(abortStatus, ABORT_BODY, ResponseFlag.FI);
    }
  }

  @Override
  public void onDestroy() {
    if (delayTimer != null) {
      delayTimer.cancel(false);
      delayTimer = null;
    }
    if (inFault) {
      inFault = false;
      factory.leaveFault();
    }
  }

  /** The filter's conditions: every header matcher, the route's cluster, the downstream node. */
  private static boolean applies(FaultConfig config, RequestHeaders headers, RouteEntry route) {
    List<Route.HeaderMatch> matchers = config.headers();
    for (int i = 0; i < matchers.size(); i++) {
      if (!RouteMatcher.headerMatches(matchers.get(i), headers)) {
        return false;
      }
    }
    if (!config.upstreamCluster().isEmpty() && !targets(route, config.upstreamCluster())) {
      return false;
    }
    if (!config.downstreamNodes().isEmpty()) {
      String node = headers.header(DOWNSTREAM_NODE_HEADER);
      return node != null && config.downstreamNodes().contains(node);
    }
    return true;
  }

  /** Whether a forwarding route sends to {@code cluster} (one of its weighted clusters counts). */
  private static boolean targets(RouteEntry route, String cluster) {
    Route.RouteAction action = route == null ? null : route.routeAction();
    if (action == null) {
      return false;
    }
    for (Route.WeightedCluster c : action.clusters()) {
      if (c.name().equals(cluster)) {
        return true;
      }
    }
    return false;
  }

  /** The delay for this request in ms, 0 for none. */
  private static long delayMillis(FaultConfig config, FaultConfig.Delay delay, RequestHeaders headers,
      RuntimeSnapshot runtime, RandomGenerator random) {
    long millis;
    int percent = delay.percentPerMillion();
    if (delay.fixed().isPresent()) {
      millis = runtime.getInteger(config.runtime().delayDurationMillis(), delay.fixed().get().toMillis());
    } else {
      millis = headerNumber(headers.header(DELAY_HEADER));
      percent = headerPercent(headers.header(DELAY_PERCENTAGE_HEADER), percent, delay.perMillionPerUnit());
    }
    if (millis <= 0 || !runtime.featureEnabled(config.runtime().delayPercent(), percent, random)) {
      return 0;
    }
    return millis;
  }

  /** Sets {@link #abortStatus} or {@link #abortGrpcStatus} when this request is to be aborted. */
  private void decideAbort(FaultConfig config, FaultConfig.Abort abort, RequestHeaders headers,
      RuntimeSnapshot runtime, RandomGenerator random) {
    int percent = abort.percentPerMillion();
    long http = -1;
    long grpc = -1;
    switch (abort) {
      case FaultConfig.HttpAbort h -> http = h.status();
      case FaultConfig.GrpcAbort g -> grpc = g.grpcStatus();
      case FaultConfig.HeaderAbort h -> {
        http = headerNumber(headers.header(ABORT_HEADER));
        if (http < 0) {
          grpc = headerNumber(headers.header(ABORT_GRPC_HEADER));
        }
        percent = headerPercent(headers.header(ABORT_PERCENTAGE_HEADER), percent, h.perMillionPerUnit());
      }
    }
    if (http >= 0) {
      http = runtime.getInteger(config.runtime().abortHttpStatus(), http);
      if (http < 200 || http >= 600) {
        return; // Envoy: a status out of [200, 600) injects nothing
      }
    } else if (grpc >= 0) {
      grpc = runtime.getInteger(config.runtime().abortGrpcStatus(), grpc);
    } else {
      return;
    }
    if (!runtime.featureEnabled(config.runtime().abortPercent(), percent, random)) {
      return;
    }
    if (http >= 0) {
      abortStatus = (int) http;
    } else {
      abortGrpcStatus = (int) grpc;
    }
  }

  /** A header's non-negative integer value, or -1 when absent or not one. */
  static long headerNumber(String value) {
    if (value == null || value.isEmpty() || value.length() > 18) {
      return -1;
    }
    long n = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  /**
   * A percentage header: its numerator over the configured denominator, never more than the
   * configured percentage (Envoy's rule); the configured one when absent or malformed.
   */
  static int headerPercent(String value, int configuredPerMillion, int perMillionPerUnit) {
    long n = headerNumber(value);
    if (n < 0) {
      return configuredPerMillion;
    }
    return (int) Math.min(configuredPerMillion, Math.min(1_000_000L, n * perMillionPerUnit));
  }
}
