package io.spillway.edge.admin;

import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.JsonFormat;
import com.google.protobuf.util.Timestamps;
import io.envoyproxy.envoy.admin.v3.BootstrapConfigDump;
import io.envoyproxy.envoy.admin.v3.ClustersConfigDump;
import io.envoyproxy.envoy.admin.v3.ConfigDump;
import io.envoyproxy.envoy.admin.v3.EndpointsConfigDump;
import io.envoyproxy.envoy.admin.v3.UpdateFailureState;
import io.envoyproxy.envoy.admin.v3.ListenersConfigDump;
import io.envoyproxy.envoy.admin.v3.RoutesConfigDump;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.ExtensionRegistry;
import io.spillway.edge.xds.XdsResourceType;
import io.spillway.edge.xds.XdsStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /config_dump}: the configuration in force as Envoy's {@code envoy.admin.v3.ConfigDump}, in
 * Envoy's order: the bootstrap (with the effective node id and cluster), the static clusters, the
 * static listeners and the route configurations inlined in their connection managers, each stamped
 * with the time the configuration was loaded. Secrets are redacted ({@link SecretRedactor}).
 *
 * <p>{@code ?resource=<field>} returns only the entries of that repeated field of the dumps (e.g.
 * {@code static_clusters}), each as its own {@code Any}, as Envoy does. Resources delivered over xDS
 * appear as Envoy's dynamic entries with their version; {@code ?include_eds} adds the endpoints. The
 * control plane's policy resource ({@code spillway.policy.v1.OverloadPolicy}: overload, rate limits,
 * access log) follows as it was accepted, after the routes. {@code ?mask} and {@code ?name_regex} are not
 * supported and answer 400 rather than being ignored.
 */
final class ConfigDumpEndpoint implements AdminEndpoint {
  private static final String HCM_TYPE = HttpConnectionManager.getDescriptor().getFullName();

  private final AdminContext context;
  private final JsonFormat.Printer printer;
  private final SecretRedactor redactor;

  /** @param extensions the types that may appear in {@code typed_config} fields */
  ConfigDumpEndpoint(AdminContext context, ExtensionRegistry extensions) {
    this.context = context;
    JsonFormat.TypeRegistry.Builder types = JsonFormat.TypeRegistry.newBuilder()
        .add(BootstrapConfigDump.getDescriptor())
        .add(ClustersConfigDump.getDescriptor())
        .add(ListenersConfigDump.getDescriptor())
        .add(RoutesConfigDump.getDescriptor())
        .add(EndpointsConfigDump.getDescriptor())
        .add(io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment.getDescriptor())
        .add(Bootstrap.getDescriptor())
        .add(Cluster.getDescriptor())
        .add(Listener.getDescriptor())
        .add(RouteConfiguration.getDescriptor())
        .add(io.spillway.policy.v1.OverloadPolicy.getDescriptor());
    for (ExtensionRegistry.Extension e : extensions.extensions()) {
      types.add(e.defaultInstance().getDescriptorForType());
    }
    JsonFormat.TypeRegistry registry = types.build();
    this.printer = JsonFormat.printer().usingTypeRegistry(registry).preservingProtoFieldNames();
    this.redactor = new SecretRedactor(registry);
  }

  @Override
  public String help() {
    return "dump current Envoy configs (secrets redacted); ?resource=<field>";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    for (String unsupported : List.of("mask", "name_regex")) {
      if (request.has(unsupported)) {
        return AdminResponse.badRequest("/config_dump?" + unsupported + "= is not supported");
      }
    }
    List<Message> dumps = dumps(request.has("include_eds"));
    ConfigDump.Builder out = ConfigDump.newBuilder();
    String resource = request.param("resource");
    if (resource == null || resource.isEmpty()) {
      dumps.forEach(d -> out.addConfigs(Any.pack(d)));
    } else {
      boolean found = false;
      for (Message dump : dumps) {
        FieldDescriptor field = dump.getDescriptorForType().findFieldByName(resource);
        if (field == null) {
          continue;
        }
        if (!field.isRepeated() || field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
          return AdminResponse.badRequest(resource + " is not a repeated field of " + dump.getDescriptorForType().getName());
        }
        found = true;
        for (Object entry : (List<?>) dump.getField(field)) {
          out.addConfigs(Any.pack((Message) entry));
        }
      }
      if (!found) {
        return AdminResponse.text(404, "no resource " + resource + " in the config dump\n");
      }
    }
    try {
      return AdminResponse.json(200, printer.print(out) + "\n");
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print the config dump: " + e.getMessage(), e);
    }
  }

  /** The bootstrap, clusters, listeners and routes dumps, redacted. */
  private List<Message> dumps(boolean includeEds) {
    Bootstrap bootstrap = redactor.redact(effectiveBootstrap());
    Timestamp loaded = Timestamps.fromMillis(context.startedAt().toEpochMilli());
    Bootstrap.StaticResources resources = bootstrap.getStaticResources();

    ClustersConfigDump.Builder clusters = ClustersConfigDump.newBuilder();
    for (Cluster c : resources.getClustersList()) {
      clusters.addStaticClusters(
          ClustersConfigDump.StaticCluster.newBuilder().setCluster(Any.pack(c)).setLastUpdated(loaded));
    }
    ListenersConfigDump.Builder listeners = ListenersConfigDump.newBuilder();
    RoutesConfigDump.Builder routes = RoutesConfigDump.newBuilder();
    for (Listener l : resources.getListenersList()) {
      listeners.addStaticListeners(
          ListenersConfigDump.StaticListener.newBuilder().setListener(Any.pack(l)).setLastUpdated(loaded));
      for (RouteConfiguration r : inlineRoutes(l)) {
        routes.addStaticRouteConfigs(
            RoutesConfigDump.StaticRouteConfig.newBuilder().setRouteConfig(Any.pack(r)).setLastUpdated(loaded));
      }
    }
    List<Message> dumps = new ArrayList<>(List.of(
        BootstrapConfigDump.newBuilder().setBootstrap(bootstrap).setLastUpdated(loaded).build()));
    Optional<XdsStatus> xds = context.xdsStatus();
    if (xds.isPresent()) {
      dynamicClusters(xds.get().types().get(XdsResourceType.CLUSTER), clusters);
      dynamicListeners(xds.get().types().get(XdsResourceType.LISTENER), listeners);
      dynamicRoutes(xds.get().types().get(XdsResourceType.ROUTE), routes);
    }
    dumps.add(clusters.build());
    dumps.add(listeners.build());
    dumps.add(routes.build());
    if (xds.isPresent()) {
      XdsStatus.TypeStatus policy = xds.get().types().get(XdsResourceType.OVERLOAD_POLICY);
      if (policy != null) {
        dumps.addAll(policy.resources().values());
      }
    }
    if (xds.isPresent() && includeEds) {
      dumps.add(dynamicEndpoints(xds.get().types().get(XdsResourceType.ENDPOINT)));
    }
    return dumps;
  }

  // Dynamic resources, as Envoy dumps them: each with the version it arrived in and when; a NACK
  // that named the resource shows as its error_state.

  private void dynamicClusters(XdsStatus.TypeStatus t, ClustersConfigDump.Builder out) {
    if (t == null) {
      return;
    }
    out.setVersionInfo(t.acceptedVersion().orElse(""));
    for (Map.Entry<String, Message> e : t.resources().entrySet()) {
      ClustersConfigDump.DynamicCluster.Builder c = ClustersConfigDump.DynamicCluster.newBuilder()
          .setVersionInfo(t.acceptedVersion().orElse(""))
          .setCluster(Any.pack(redactor.redact(e.getValue())))
          .setLastUpdated(updated(t));
      failure(t, "cluster", e.getKey()).ifPresent(c::setErrorState);
      out.addDynamicActiveClusters(c);
    }
  }

  private void dynamicListeners(XdsStatus.TypeStatus t, ListenersConfigDump.Builder out) {
    if (t == null) {
      return;
    }
    out.setVersionInfo(t.acceptedVersion().orElse(""));
    for (Map.Entry<String, Message> e : t.resources().entrySet()) {
      ListenersConfigDump.DynamicListener.Builder l = ListenersConfigDump.DynamicListener.newBuilder()
          .setName(e.getKey())
          .setActiveState(ListenersConfigDump.DynamicListenerState.newBuilder()
              .setVersionInfo(t.acceptedVersion().orElse(""))
              .setListener(Any.pack(redactor.redact(e.getValue())))
              .setLastUpdated(updated(t)));
      failure(t, "listener", e.getKey()).ifPresent(l::setErrorState);
      out.addDynamicListeners(l);
    }
  }

  private void dynamicRoutes(XdsStatus.TypeStatus t, RoutesConfigDump.Builder out) {
    if (t == null) {
      return;
    }
    for (Map.Entry<String, Message> e : t.resources().entrySet()) {
      RoutesConfigDump.DynamicRouteConfig.Builder r = RoutesConfigDump.DynamicRouteConfig.newBuilder()
          .setVersionInfo(t.acceptedVersion().orElse(""))
          .setRouteConfig(Any.pack(e.getValue()))
          .setLastUpdated(updated(t));
      failure(t, "route_configuration", e.getKey()).ifPresent(r::setErrorState);
      out.addDynamicRouteConfigs(r);
    }
  }

  private static Message dynamicEndpoints(XdsStatus.TypeStatus t) {
    EndpointsConfigDump.Builder out = EndpointsConfigDump.newBuilder();
    if (t != null) {
      for (Message m : t.resources().values()) {
        out.addDynamicEndpointConfigs(EndpointsConfigDump.DynamicEndpointConfig.newBuilder()
            .setVersionInfo(t.acceptedVersion().orElse(""))
            .setEndpointConfig(Any.pack(m))
            .setLastUpdated(updated(t)));
      }
    }
    return out.build();
  }

  private static Timestamp updated(XdsStatus.TypeStatus t) {
    return t.lastUpdateTime().map(i -> Timestamps.fromMillis(i.toEpochMilli())).orElse(Timestamps.EPOCH);
  }

  /** The last NACK of this type, when its reason names the resource ({@code <kind> "<name>"…}). */
  private static Optional<UpdateFailureState> failure(XdsStatus.TypeStatus t, String kind, String name) {
    if (t.lastNackMessage().isEmpty() || !t.lastNackMessage().get().startsWith(kind + " \"" + name + "\"")) {
      return Optional.empty();
    }
    UpdateFailureState.Builder f = UpdateFailureState.newBuilder().setDetails(t.lastNackMessage().get());
    t.lastNackTime().ifPresent(i -> f.setLastUpdateAttempt(Timestamps.fromMillis(i.toEpochMilli())));
    return Optional.of(f.build());
  }

  /**
   * The bootstrap with the node id and cluster in force (after command-line overrides), and the
   * xDS servers' {@code initial_metadata} values (credentials) redacted.
   */
  private Bootstrap effectiveBootstrap() {
    Bootstrap bootstrap = withoutXdsCredentials(context.bootstrap());
    EdgeConfig.NodeInfo node = context.config().node();
    if (node.id().equals(bootstrap.getNode().getId()) && node.cluster().equals(bootstrap.getNode().getCluster())) {
      return bootstrap;
    }
    return bootstrap.toBuilder()
        .setNode(bootstrap.getNode().toBuilder().setId(node.id()).setCluster(node.cluster()))
        .build();
  }

  private static Bootstrap withoutXdsCredentials(Bootstrap bootstrap) {
    if (!bootstrap.getDynamicResources().getAdsConfig().getGrpcServicesList().stream()
        .anyMatch(g -> g.getInitialMetadataCount() > 0)) {
      return bootstrap;
    }
    Bootstrap.Builder b = bootstrap.toBuilder();
    var ads = b.getDynamicResourcesBuilder().getAdsConfigBuilder();
    for (var service : ads.getGrpcServicesBuilderList()) {
      for (var header : service.getInitialMetadataBuilderList()) {
        header.setValue("[redacted]");
      }
    }
    return b.build();
  }

  private static List<RouteConfiguration> inlineRoutes(Listener listener) {
    List<RouteConfiguration> routes = new ArrayList<>();
    for (FilterChain chain : listener.getFilterChainsList()) {
      for (Filter filter : chain.getFiltersList()) {
        Any config = filter.getTypedConfig();
        if (!config.getTypeUrl().endsWith("/" + HCM_TYPE)) {
          continue;
        }
        try {
          HttpConnectionManager hcm = HttpConnectionManager.parseFrom(config.getValue());
          if (hcm.hasRouteConfig()) {
            routes.add(hcm.getRouteConfig());
          }
        } catch (InvalidProtocolBufferException e) {
          // The loader parsed it once; a config that does not parse again has no routes to show.
        }
      }
    }
    return routes;
  }
}
