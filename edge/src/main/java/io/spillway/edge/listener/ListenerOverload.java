package io.spillway.edge.listener;

import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.GlobalConnectionLimit;
import io.spillway.edge.overload.LoadShedPoint;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.runtime.Runtime;

/**
 * What a listener reads from the overload manager on every accepted connection, resolved once.
 *
 * @param manager publishes the state snapshot
 * @param connections the global downstream connection limit (unlimited when not configured)
 * @param rejectIncoming reject_incoming_connections: saturated → accept and close at once
 * @param acceptShed the tcp_listener_accept shed point
 * @param codecCreation the hcm_ondata_creating_codec shed point: the connection closes before its
 *     HTTP codec is created
 * @param runtime the runtime, for the connection limits it may set
 *     ({@code overload.global_downstream_max_connections} and
 *     {@code envoy.resource_limits.listener.<name>.connection_limit})
 */
public record ListenerOverload(
    OverloadManager manager,
    GlobalConnectionLimit connections,
    ActionIndex rejectIncoming,
    LoadShedPoint acceptShed,
    LoadShedPoint codecCreation,
    Runtime runtime) {
  /** Envoy's deprecated runtime key for the global downstream connection limit. */
  public static final String GLOBAL_MAX_CONNECTIONS_KEY = "overload.global_downstream_max_connections";

  public static ListenerOverload of(OverloadManager manager, Runtime runtime) {
    return new ListenerOverload(manager, manager.globalConnections(),
        manager.actionHandle(OverloadNames.REJECT_INCOMING_CONNECTIONS),
        manager.loadShedPoint(OverloadNames.TCP_LISTENER_ACCEPT),
        manager.loadShedPoint(OverloadNames.HCM_ONDATA_CREATING_CODEC), runtime);
  }

  /** The runtime key of a listener's own connection limit. */
  public static String listenerConnectionLimitKey(String listenerName) {
    return "envoy.resource_limits.listener." + listenerName + ".connection_limit";
  }
}
