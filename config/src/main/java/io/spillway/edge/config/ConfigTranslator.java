package io.spillway.edge.config;

import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.bootstrap.v3.Admin;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.spillway.edge.config.AddressTranslator.HostKind;
import io.spillway.edge.config.DynamicResourcesTranslator;
import io.spillway.edge.config.XdsClientConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Validates an Envoy v3 {@link Bootstrap} and translates it, once, into an {@link EdgeConfig}.
 *
 * <p>Only a documented subset of Envoy is supported. Any field outside it that is set is rejected
 * with its full path ({@code <path>: <field> is not supported}); fields that cannot change the
 * edge's behaviour (names, stat prefixes, metadata) are accepted. Translation stops at the first
 * problem, reported as a {@link ConfigException}. Clusters are translated before listeners, since
 * routes must name existing clusters.
 */
public final class ConfigTranslator {

  private static final SupportedFields BOOTSTRAP = SupportedFields.of(Bootstrap.getDescriptor(),
          "node", "static_resources", "admin", "overload_manager", "dynamic_resources", "layered_runtime",
          "watchdogs", "watchdog", "stats_sinks", "stats_flush_interval", "stats_flush_on_admin", "stats_config")
      .laterUnlessEmpty("cluster_manager");
  private static final SupportedFields STATIC_RESOURCES = SupportedFields.of(
      Bootstrap.StaticResources.getDescriptor(), "listeners", "clusters");
  private static final SupportedFields NODE = SupportedFields.of(Node.getDescriptor(),
      "id", "cluster", "metadata", "locality");
  private static final SupportedFields ADMIN = SupportedFields.of(Admin.getDescriptor(),
      "address", "access_log", "access_log_path", "ignore_global_conn_limit");

  private ConfigTranslator() {}

  /** Translates with the {@linkplain ExtensionRegistry#standard() standard} extensions. */
  public static EdgeConfig translate(Bootstrap bootstrap) throws ConfigException {
    return translate(bootstrap, ExtensionRegistry.standard());
  }

  /** Translates with the extensions of {@code registry}. */
  public static EdgeConfig translate(Bootstrap bootstrap, ExtensionRegistry registry) throws ConfigException {
    FieldPath root = FieldPath.ROOT;
    BOOTSTRAP.check(bootstrap, root);
    EdgeConfig.NodeInfo node = node(bootstrap.getNode(), root.field("node"));
    Optional<EdgeConfig.AdminConfig> admin = bootstrap.hasAdmin()
        ? admin(bootstrap.getAdmin(), root.field("admin"), registry)
        : Optional.empty();
    FieldPath staticPath = root.field("static_resources");
    Bootstrap.StaticResources resources = bootstrap.getStaticResources();
    STATIC_RESOURCES.check(resources, staticPath);
    boolean ads = bootstrap.hasDynamicResources() && bootstrap.getDynamicResources().hasAdsConfig();
    Map<String, ClusterConfig> clusters =
        new ClusterTranslator(registry, ads).translate(resources.getClustersList(), staticPath.field("clusters"));
    Optional<XdsClientConfig> xds = DynamicResourcesTranslator.translate(bootstrap, clusters, Optional.empty());
    RouteTranslator routes = new RouteTranslator(clusters.keySet());
    ListenerTranslator listenerTranslator =
        new ListenerTranslator(registry, new HttpConnectionManagerTranslator(registry, routes, ads));
    List<ListenerConfig> listeners =
        listenerTranslator.translate(resources.getListenersList(), staticPath.field("listeners"));
    OverloadConfig overload = OverloadManagerTranslator.translate(bootstrap.getOverloadManager(),
        root.field("overload_manager"), registry);
    RuntimeConfig runtime = RuntimeTranslator.translate(bootstrap.getLayeredRuntime(), root.field("layered_runtime"),
        ads);
    if (!runtime.rtdsResources().isEmpty()) {
      xds = xds.map(x -> x.withRuntimeResources(runtime.rtdsResources()));
    }
    WatchdogConfig.Watchdogs watchdogs = WatchdogTranslator.translate(bootstrap, root);
    StatsFlushConfig statsFlush = StatsSinkTranslator.translate(bootstrap, root, registry);
    StatsConfig statsConfig = StatsConfigTranslator.translate(bootstrap, root);
    return new EdgeConfig(node, admin, listeners, clusters, overload, xds, runtime, watchdogs, statsFlush,
        statsConfig);
  }

  private static EdgeConfig.NodeInfo node(Node node, FieldPath path) throws ConfigException {
    NODE.check(node, path);
    Map<String, String> metadata = new LinkedHashMap<>();
    for (Map.Entry<String, Value> e : node.getMetadata().getFieldsMap().entrySet()) {
      if (e.getValue().getKindCase() == Value.KindCase.STRING_VALUE) {
        metadata.put(e.getKey(), e.getValue().getStringValue());
      }
    }
    return new EdgeConfig.NodeInfo(node.getId(), node.getCluster(), metadata, node.getLocality().getZone());
  }

  private static Optional<EdgeConfig.AdminConfig> admin(Admin admin, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    ADMIN.check(admin, path);
    List<AccessLogConfig> accessLogs = new java.util.ArrayList<>(
        AccessLogTranslator.translate(admin.getAccessLogList(), path.field("access_log"), registry));
    @SuppressWarnings("deprecation") // access_log_path: deprecated for access_log, still accepted by Envoy
    String legacyPath = admin.getAccessLogPath();
    if (!legacyPath.isEmpty() && !legacyPath.equals("/dev/null")) {
      accessLogs.add(AccessLogTranslator.adminPath(legacyPath, path.field("access_log_path")));
    }
    if (!admin.hasAddress()) {
      return Optional.empty();
    }
    return Optional.of(new EdgeConfig.AdminConfig(AddressTranslator.translate(admin.getAddress(),
        path.field("address"), HostKind.IP_LITERAL, " (the admin listener binds to an IP address)", 0), accessLogs));
  }
}
