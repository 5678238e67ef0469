package io.spillway.edge.admin;

import io.envoyproxy.envoy.admin.v3.ServerInfo;

/**
 * The server state Envoy reports in {@code /ready} and {@code /server_info}: LIVE once started,
 * DRAINING while draining or while {@code /healthcheck/fail} is in force, PRE_INITIALIZING before
 * start-up has finished.
 */
enum ServerState {
  LIVE,
  DRAINING,
  PRE_INITIALIZING;

  static ServerState of(AdminContext context) {
    if (context.isReady()) {
      return LIVE;
    }
    if (context.isDraining() || context.healthCheckFailed()) {
      return DRAINING;
    }
    return PRE_INITIALIZING;
  }

  ServerInfo.State proto() {
    return switch (this) {
      case LIVE -> ServerInfo.State.LIVE;
      case DRAINING -> ServerInfo.State.DRAINING;
      case PRE_INITIALIZING -> ServerInfo.State.PRE_INITIALIZING;
    };
  }
}
