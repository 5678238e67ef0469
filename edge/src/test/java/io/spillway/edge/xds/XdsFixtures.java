package io.spillway.edge.xds;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.spillway.edge.config.DynamicResourcesTranslator;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.stats.StatsStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Resources, responses and client configs for the ADS client's tests. */
final class XdsFixtures {

  static final String CDS = XdsResourceType.CLUSTER.typeUrl();
  static final String EDS = XdsResourceType.ENDPOINT.typeUrl();
  static final String LDS = XdsResourceType.LISTENER.typeUrl();
  static final String RDS = XdsResourceType.ROUTE.typeUrl();
  static final String POLICY = XdsResourceType.OVERLOAD_POLICY.typeUrl();

  static final Node NODE = Node.newBuilder().setId("edge-1").setCluster("edges").build();

  private XdsFixtures() {}

  static XdsClientConfig config(XdsClientConfig.Variant variant, Duration initialFetchTimeout, Optional<Path> dir,
      int... ports) {
    List<XdsClientConfig.XdsServer> servers = java.util.Arrays.stream(ports)
        .mapToObj(p -> new XdsClientConfig.XdsServer("127.0.0.1", p,
            List.of(new XdsClientConfig.Header("authorization", "Bearer test-token"))))
        .toList();
    return new XdsClientConfig(servers, variant, DynamicResourcesTranslator.node(NODE), false, initialFetchTimeout,
        Duration.ofMillis(20), Duration.ofMillis(200), dir, XdsClientConfig.PolicySubscription.ALWAYS);
  }

  static AdsClient client(XdsClientConfig config, XdsConfigSink sink, StatsStore stats) {
    return new AdsClient(config, sink, stats.rootScope());
  }

  static Cluster edsCluster(String name, String serviceName) {
    Cluster.Builder cluster = Cluster.newBuilder().setName(name).setType(Cluster.DiscoveryType.EDS)
        .setConnectTimeout(com.google.protobuf.Duration.newBuilder().setSeconds(1));
    Cluster.EdsClusterConfig.Builder eds = Cluster.EdsClusterConfig.newBuilder()
        .setEdsConfig(ConfigSource.newBuilder().setAds(AggregatedConfigSource.getDefaultInstance()));
    if (serviceName != null) {
      eds.setServiceName(serviceName);
    }
    return cluster.setEdsClusterConfig(eds).build();
  }

  static Cluster staticCluster(String name, int port) {
    return Cluster.newBuilder().setName(name).setType(Cluster.DiscoveryType.STATIC)
        .setLoadAssignment(endpoints(name, port)).build();
  }

  static ClusterLoadAssignment endpoints(String name, int port) {
    return ClusterLoadAssignment.newBuilder().setClusterName(name)
        .addEndpoints(LocalityLbEndpoints.newBuilder().addLbEndpoints(LbEndpoint.newBuilder()
            .setEndpoint(Endpoint.newBuilder().setAddress(Address.newBuilder()
                .setSocketAddress(SocketAddress.newBuilder().setAddress("127.0.0.1").setPortValue(port))))))
        .build();
  }

  /** A listener whose HTTP connection manager takes its routes from RDS {@code routeName} (none if null). */
  static Listener listener(String name, int port, String routeName) {
    Listener.Builder listener = Listener.newBuilder().setName(name)
        .setAddress(Address.newBuilder().setSocketAddress(
            SocketAddress.newBuilder().setAddress("127.0.0.1").setPortValue(port)));
    if (routeName != null) {
      HttpConnectionManager hcm = HttpConnectionManager.newBuilder().setStatPrefix(name)
          .setRds(Rds.newBuilder().setRouteConfigName(routeName)
              .setConfigSource(ConfigSource.newBuilder().setAds(AggregatedConfigSource.getDefaultInstance())))
          .build();
      listener.addFilterChains(FilterChain.newBuilder().addFilters(Filter.newBuilder()
          .setName("envoy.filters.network.http_connection_manager").setTypedConfig(Any.pack(hcm))));
    }
    return listener.build();
  }

  static RouteConfiguration routes(String name, String domain) {
    return RouteConfiguration.newBuilder().setName(name)
        .addVirtualHosts(VirtualHost.newBuilder().setName("vh").addDomains(domain)).build();
  }

  static DiscoveryResponse sotw(String typeUrl, String version, String nonce, Message... resources) {
    DiscoveryResponse.Builder response = DiscoveryResponse.newBuilder()
        .setTypeUrl(typeUrl).setVersionInfo(version).setNonce(nonce);
    for (Message resource : resources) {
      response.addResources(Any.pack(resource));
    }
    return response.build();
  }

  static Resource resource(String name, String version, Message message) {
    return Resource.newBuilder().setName(name).setVersion(version).setResource(Any.pack(message)).build();
  }

  static DeltaDiscoveryResponse delta(String typeUrl, String version, String nonce, List<Resource> added,
      List<String> removed) {
    return DeltaDiscoveryResponse.newBuilder().setTypeUrl(typeUrl).setSystemVersionInfo(version).setNonce(nonce)
        .addAllResources(added).addAllRemovedResources(removed).build();
  }

  static long stat(StatsStore stats, String name) {
    return stats.find(name).map(s -> s instanceof io.spillway.edge.stats.Counter c ? c.value()
        : ((io.spillway.edge.stats.Gauge) s).value()).orElseThrow(() -> new AssertionError("no stat " + name));
  }
}
