package io.spillway.edge.http;

import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.LoadShedPoint;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.overload.OverloadState;
import io.spillway.edge.overload.ScaledTimeouts;
import io.spillway.edge.config.OverloadNames;
import java.util.random.RandomGenerator;

/**
 * What a connection manager reads from the overload manager, resolved once by name: the published
 * state and the handles of the actions and shed points that act on HTTP streams. Handles of
 * actions that are not configured are never active.
 *
 * @param manager publishes the state snapshot read once per request
 * @param stopAcceptingRequests saturated: new requests get 503 (flag OM)
 * @param disableKeepalive its state is the share of responses that close the connection (HTTP/1)
 *     or send GOAWAY (HTTP/2)
 * @param decodeHeaders the {@code http_connection_manager_decode_headers} shed point
 * @param filterCheck the {@code http_downstream_filter_check} shed point, met after decodeHeaders
 *     and before the router
 * @param http1AbortDispatch sheds an HTTP/1 connection when a request arrives: it is closed
 * @param http2GoAway a new HTTP/2 stream makes the connection send GOAWAY (the stream is served)
 * @param http2GoAwayAndClose a new HTTP/2 stream makes the connection send GOAWAY and close at
 *     once; wins over {@code http2GoAway}
 * @param timeouts reduce_timeouts: scales the connection and stream idle timeouts and the maximum
 *     connection duration
 * @param resetHighMemoryStreams reset_high_memory_stream: HTTP/2 streams holding much buffered
 *     memory are reset when the action's state changes
 */
public record OverloadHooks(
    OverloadManager manager,
    ActionIndex stopAcceptingRequests,
    ActionIndex disableKeepalive,
    LoadShedPoint decodeHeaders,
    LoadShedPoint filterCheck,
    ScaledTimeouts timeouts,
    LoadShedPoint http1AbortDispatch,
    LoadShedPoint http2GoAway,
    LoadShedPoint http2GoAwayAndClose,
    ActionIndex resetHighMemoryStreams) {

  /**
   * Whether a new request is refused with 503 before any filter: stop_accepting_requests
   * saturated, or one of the shed points in the order a request meets them (decoded headers, then
   * the filter check).
   */
  public boolean shedsNewRequest(RandomGenerator random) {
    OverloadState state = manager.state();
    return state.isSaturated(stopAcceptingRequests) || decodeHeaders.shouldShed(state, random)
        || filterCheck.shouldShed(state, random);
  }

  /**
   * disable_http_keepalive: with the action's state as probability (1 when saturated), whether
   * this response ends its connection.
   */
  public boolean closesConnection(RandomGenerator random) {
    double p = manager.state().actionState(disableKeepalive);
    return p > 0 && (p >= 1 || random.nextDouble() < p);
  }

  /** Whether an HTTP/2 connection must keep track of its streams (to tell them of timer or reset events). */
  public boolean tracksStreams() {
    return timeouts.scales(io.spillway.edge.config.OverloadConfig.TimerType.HTTP_DOWNSTREAM_STREAM_IDLE)
        || resetHighMemoryStreams.isConfigured();
  }

  /** Whether reduce_timeouts scales timers of {@code type} at all. */
  public boolean scales(io.spillway.edge.config.OverloadConfig.TimerType type) {
    return timeouts.scales(type);
  }

  /** A configured timeout, scaled by reduce_timeouts in the current state (unchanged when not configured). */
  public java.time.Duration scaled(io.spillway.edge.config.OverloadConfig.TimerType type, java.time.Duration configured) {
    if (configured.isZero() || !timeouts.scales(type)) {
      return configured;
    }
    return timeouts.scaledTimeout(type, configured, manager.state());
  }

  public static OverloadHooks of(OverloadManager manager) {
    return new OverloadHooks(manager,
        manager.actionHandle(OverloadNames.STOP_ACCEPTING_REQUESTS),
        manager.actionHandle(OverloadNames.DISABLE_HTTP_KEEPALIVE),
        manager.loadShedPoint(OverloadNames.HCM_DECODE_HEADERS),
        manager.loadShedPoint(OverloadNames.HTTP_DOWNSTREAM_FILTER_CHECK),
        manager.scaledTimeouts(),
        manager.loadShedPoint(OverloadNames.HTTP1_SERVER_ABORT_DISPATCH),
        manager.loadShedPoint(OverloadNames.HTTP2_SERVER_GO_AWAY_ON_DISPATCH),
        manager.loadShedPoint(OverloadNames.HTTP2_SERVER_GO_AWAY_AND_CLOSE_ON_DISPATCH),
        manager.actionHandle(OverloadNames.RESET_HIGH_MEMORY_STREAM));
  }
}
