package io.spillway.edge.config;

import java.util.List;

/**
 * The names the overload manager knows: Envoy's resource monitors, overload actions and load shed
 * points, plus Spillway's own JVM monitors under {@code spillway.resource_monitors.*}. Actions and
 * shed points outside these lists are rejected at startup; monitors are also found by the type of
 * their {@code typed_config}.
 */
public final class OverloadNames {

  private OverloadNames() {}

  // --- resource monitors ----------------------------------------------------------------------

  /** Used heap against {@code max_heap_size_bytes}. */
  public static final String FIXED_HEAP = "envoy.resource_monitors.fixed_heap";
  /** cgroup v1/v2 memory usage against the cgroup limit (and {@code max_memory_bytes}). */
  public static final String CGROUP_MEMORY = "envoy.resource_monitors.cgroup_memory";
  /** Host CPU ({@code /proc/stat}) or container CPU (cgroup usage against quota). */
  public static final String CPU_UTILIZATION = "envoy.resource_monitors.cpu_utilization";
  /** The proactive count of active downstream connections against the global limit. */
  public static final String GLOBAL_DOWNSTREAM_MAX_CONNECTIONS =
      "envoy.resource_monitors.global_downstream_max_connections";
  /** Pressure read from a file, for tests and drills. */
  public static final String INJECTED_RESOURCE = "envoy.resource_monitors.injected_resource";
  /** (ours) Direct and pooled buffer memory against its limit. */
  public static final String BUFFER_MEMORY = "spillway.resource_monitors.buffer_memory";
  /** (ours) Share of wall time spent in garbage collection over a window. */
  public static final String GC_PRESSURE = "spillway.resource_monitors.gc_pressure";
  /** (ours) The worst event-loop lag against a target. */
  public static final String EVENT_LOOP_LAG = "spillway.resource_monitors.event_loop_lag";

  /** Every resource monitor name, Envoy's first. */
  public static final List<String> RESOURCE_MONITORS = List.of(FIXED_HEAP, CGROUP_MEMORY, CPU_UTILIZATION,
      GLOBAL_DOWNSTREAM_MAX_CONNECTIONS, INJECTED_RESOURCE, BUFFER_MEMORY, GC_PRESSURE, EVENT_LOOP_LAG);

  // --- overload actions -----------------------------------------------------------------------

  /** New requests get a 503 local reply. */
  public static final String STOP_ACCEPTING_REQUESTS = "envoy.overload_actions.stop_accepting_requests";
  /** HTTP/1 closes after the response, HTTP/2 drains with GOAWAY. */
  public static final String DISABLE_HTTP_KEEPALIVE = "envoy.overload_actions.disable_http_keepalive";
  /** Listeners stop accepting new connections. */
  public static final String STOP_ACCEPTING_CONNECTIONS = "envoy.overload_actions.stop_accepting_connections";
  /** Listeners accept and immediately close a share of new connections. */
  public static final String REJECT_INCOMING_CONNECTIONS = "envoy.overload_actions.reject_incoming_connections";
  /** Periodically return free memory (for the JVM: trim pooled allocator caches). */
  public static final String SHRINK_HEAP = "envoy.overload_actions.shrink_heap";
  /** Scale the configured timers down towards their minimums. */
  public static final String REDUCE_TIMEOUTS = "envoy.overload_actions.reduce_timeouts";
  /** Reset the streams holding the most buffer memory. */
  public static final String RESET_HIGH_MEMORY_STREAM = "envoy.overload_actions.reset_high_memory_stream";
  /** Close idle downstream HTTP connections. */
  public static final String CLOSE_IDLE_HTTP_CONNECTIONS = "envoy.overload_actions.close_idle_http_connections";

  /** Every overload action Spillway accepts, in Envoy's documentation order. */
  public static final List<String> ACTIONS = List.of(STOP_ACCEPTING_REQUESTS, DISABLE_HTTP_KEEPALIVE,
      STOP_ACCEPTING_CONNECTIONS, REJECT_INCOMING_CONNECTIONS, SHRINK_HEAP, REDUCE_TIMEOUTS,
      RESET_HIGH_MEMORY_STREAM, CLOSE_IDLE_HTTP_CONNECTIONS);

  // --- load shed points -----------------------------------------------------------------------

  /** Close a new TCP connection before its filter chain is built. */
  public static final String TCP_LISTENER_ACCEPT = "envoy.load_shed_points.tcp_listener_accept";
  /** Answer a new stream with a local reply once its headers are decoded. */
  public static final String HCM_DECODE_HEADERS = "envoy.load_shed_points.http_connection_manager_decode_headers";
  /** Stop dispatching an HTTP/1 connection (local reply if possible, then close). */
  public static final String HTTP1_SERVER_ABORT_DISPATCH = "envoy.load_shed_points.http1_server_abort_dispatch";
  /** Send GOAWAY on an HTTP/2 connection while dispatching. */
  public static final String HTTP2_SERVER_GO_AWAY_ON_DISPATCH =
      "envoy.load_shed_points.http2_server_go_away_on_dispatch";
  /** Send GOAWAY and close an HTTP/2 connection at once; wins over the plain GOAWAY point. */
  public static final String HTTP2_SERVER_GO_AWAY_AND_CLOSE_ON_DISPATCH =
      "envoy.load_shed_points.http2_server_go_away_and_close_on_dispatch";
  /** Close the connection before creating its codec. */
  public static final String HCM_ONDATA_CREATING_CODEC = "envoy.load_shed_points.hcm_ondata_creating_codec";
  /** Local reply before the router creates an upstream request. */
  public static final String HTTP_DOWNSTREAM_FILTER_CHECK = "envoy.load_shed_points.http_downstream_filter_check";
  /** Connection pools stop opening new upstream connections. */
  public static final String CONNECTION_POOL_NEW_CONNECTION = "envoy.load_shed_points.connection_pool_new_connection";

  /** Every load shed point Spillway accepts. */
  public static final List<String> LOAD_SHED_POINTS = List.of(TCP_LISTENER_ACCEPT, HCM_DECODE_HEADERS,
      HTTP1_SERVER_ABORT_DISPATCH, HTTP2_SERVER_GO_AWAY_ON_DISPATCH, HTTP2_SERVER_GO_AWAY_AND_CLOSE_ON_DISPATCH,
      HCM_ONDATA_CREATING_CODEC, HTTP_DOWNSTREAM_FILTER_CHECK, CONNECTION_POOL_NEW_CONNECTION);
}
