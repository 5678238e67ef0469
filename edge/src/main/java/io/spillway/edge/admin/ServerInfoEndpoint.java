package io.spillway.edge.admin;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.Durations;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.admin.v3.CommandLineOptions;
import io.envoyproxy.envoy.admin.v3.ServerInfo;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.spillway.edge.config.EdgeConfig;
import java.time.Duration;
import java.util.Set;

/**
 * {@code /server_info}: Envoy's {@code envoy.admin.v3.ServerInfo} as JSON: version, state, uptime,
 * the command-line options we know of and the node (the bootstrap's, with the effective id and
 * cluster after {@code --service-node}/{@code --service-cluster}).
 *
 * <p>{@code hot_restart_version} and {@code restart_epoch} are the hot restart's; the parent's
 * uptime is not handed over, so both uptimes are this process's. Command-line options Spillway does not track are left out rather than
 * reported with made-up values.
 */
final class ServerInfoEndpoint implements AdminEndpoint {
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer()
      .preservingProtoFieldNames()
      // Envoy prints these even at their zero values (LIVE, Serve, epoch 0).
      .includingDefaultValueFields(Set.of(
          ServerInfo.getDescriptor().findFieldByName("state"),
          CommandLineOptions.getDescriptor().findFieldByName("mode"),
          CommandLineOptions.getDescriptor().findFieldByName("concurrency"),
          CommandLineOptions.getDescriptor().findFieldByName("restart_epoch"),
          CommandLineOptions.getDescriptor().findFieldByName("disable_hot_restart")));

  private final AdminContext context;
  private final String version;

  /** @param version the Spillway version, e.g. {@code 0.1.0} (see {@link #implementationVersion()}) */
  ServerInfoEndpoint(AdminContext context, String version) {
    this.context = context;
    this.version = version;
  }

  /** The jar manifest's {@code Implementation-Version}, or {@code dev} outside a versioned jar. */
  static String implementationVersion() {
    String v = ServerInfoEndpoint.class.getPackage().getImplementationVersion();
    return v == null || v.isBlank() ? "dev" : v;
  }

  @Override
  public String help() {
    return "print server version/status information";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    long uptimeSeconds = Math.max(0, Duration.between(context.startedAt(), context.clock().instant()).toSeconds());
    ServerInfo info = ServerInfo.newBuilder()
        .setVersion("spillway/" + version)
        .setState(ServerState.of(context).proto())
        .setUptimeCurrentEpoch(Durations.fromSeconds(uptimeSeconds))
        .setUptimeAllEpochs(Durations.fromSeconds(uptimeSeconds))
        .setHotRestartVersion(context.hotRestartVersion())
        .setCommandLineOptions(CommandLineOptions.newBuilder()
            .setConcurrency(context.concurrency())
            .setMode(CommandLineOptions.Mode.Serve)
            .setDisableHotRestart("disabled".equals(context.hotRestartVersion()))
            .setRestartEpoch(context.restartEpoch()))
        .setNode(node())
        .build();
    try {
      return AdminResponse.json(200, PRINTER.print(info) + "\n");
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print server info: " + e.getMessage(), e);
    }
  }

  private Node node() {
    EdgeConfig.NodeInfo effective = context.config().node();
    return context.bootstrap().getNode().toBuilder()
        .setId(effective.id())
        .setCluster(effective.cluster())
        .setUserAgentName("spillway")
        .setUserAgentVersion(version)
        .build();
  }
}
