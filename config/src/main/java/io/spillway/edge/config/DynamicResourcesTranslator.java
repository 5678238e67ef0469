package io.spillway.edge.config;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MessageOrBuilder;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.core.v3.ApiConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.config.core.v3.GrpcService;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.spillway.edge.config.XdsClientConfig.Header;
import io.spillway.edge.config.XdsClientConfig.XdsServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code dynamic_resources} of an Envoy v3 {@link Bootstrap} → {@link XdsClientConfig}.
 *
 * <p>Supported: one aggregated (ADS) stream over gRPC, State-of-the-World ({@code api_type: GRPC})
 * or Delta ({@code DELTA_GRPC}), transport API version V3; {@code cds_config} and
 * {@code lds_config} both {@code ads: {}}; servers named by {@code envoy_grpc.cluster_name} (a
 * static HTTP/2 cluster whose endpoints are the servers in order of preference) or by
 * {@code google_grpc.target_uri} ({@code host:port}); {@code initial_metadata};
 * {@code set_node_on_first_message_only}; {@code initial_fetch_timeout}. Any other field that is
 * set is rejected with its path, e.g. {@code dynamic_resources.ads_config.api_type: REST is not
 * supported}. TLS to the xDS server: {@code google_grpc.channel_credentials.ssl_credentials}
 * (root certificates, optionally a client certificate and key, as file names or inline PEM).
 */
public final class DynamicResourcesTranslator {

  private static final String ROOT = "dynamic_resources";
  private static final Pattern HEADER_KEY = Pattern.compile("[0-9a-z_.-]+");
  private static final String USER_AGENT_NAME = "spillway";

  private DynamicResourcesTranslator() {}

  /**
   * Translates {@code bootstrap.dynamic_resources}.
   *
   * @param bootstrap the whole bootstrap (node identity comes from {@code node})
   * @param staticClusters the translated static clusters, by name, that {@code envoy_grpc} may name
   * @param stateDirectory where to keep the last-known-good state (from the command line), if anywhere
   * @return empty when the bootstrap has no {@code dynamic_resources}
   * @throws ConfigException naming the first unsupported or invalid field
   */
  public static Optional<XdsClientConfig> translate(Bootstrap bootstrap, Map<String, ClusterConfig> staticClusters,
      Optional<Path> stateDirectory) throws ConfigException {
    if (!bootstrap.hasDynamicResources()) {
      return Optional.empty();
    }
    Bootstrap.DynamicResources dynamic = bootstrap.getDynamicResources();
    onlyFields(dynamic, ROOT, Set.of("ads_config", "cds_config", "lds_config"));
    if (!dynamic.hasAdsConfig()) {
      // A file or REST source names its own field first: that is what the operator wrote.
      if (dynamic.hasCdsConfig()) {
        adsConfigSource(true, dynamic.getCdsConfig(), ROOT + ".cds_config");
      }
      if (dynamic.hasLdsConfig()) {
        adsConfigSource(true, dynamic.getLdsConfig(), ROOT + ".lds_config");
      }
      throw new ConfigException(ROOT + ".ads_config", "ads_config is required (the edge takes its resources over one ADS stream)");
    }
    String ads = ROOT + ".ads_config";
    ApiConfigSource source = dynamic.getAdsConfig();
    onlyFields(source, ads, Set.of("api_type", "transport_api_version", "grpc_services", "set_node_on_first_message_only"));
    XdsClientConfig.Variant variant = switch (source.getApiType()) {
      case GRPC -> XdsClientConfig.Variant.SOTW;
      case DELTA_GRPC -> XdsClientConfig.Variant.DELTA;
      default -> throw new ConfigException(ads + ".api_type", source.getApiType() + " is not supported (GRPC or DELTA_GRPC)");
    };
    if (source.getTransportApiVersion() != ApiVersion.V3 && source.getTransportApiVersion() != ApiVersion.AUTO) {
      throw new ConfigException(ads + ".transport_api_version",
          source.getTransportApiVersion() + " is not supported (set V3)");
    }
    if (source.getGrpcServicesCount() == 0) {
      throw new ConfigException(ads + ".grpc_services", "at least one gRPC service is required");
    }
    List<XdsServer> servers = new ArrayList<>();
    for (int i = 0; i < source.getGrpcServicesCount(); i++) {
      servers.addAll(servers(source.getGrpcServices(i), ads + ".grpc_services[" + i + "]", staticClusters));
    }
    Duration cdsTimeout = adsConfigSource(dynamic.hasCdsConfig(), dynamic.getCdsConfig(), ROOT + ".cds_config");
    Duration ldsTimeout = adsConfigSource(dynamic.hasLdsConfig(), dynamic.getLdsConfig(), ROOT + ".lds_config");
    Duration initialFetchTimeout = cdsTimeout.compareTo(ldsTimeout) >= 0 ? cdsTimeout : ldsTimeout;
    return Optional.of(new XdsClientConfig(servers, variant, node(bootstrap.getNode()),
        source.getSetNodeOnFirstMessageOnly(), initialFetchTimeout, XdsClientConfig.DEFAULT_BACKOFF_BASE,
        XdsClientConfig.DEFAULT_BACKOFF_CAP, stateDirectory, XdsClientConfig.PolicySubscription.ADVERTISED));
  }

  /** The node identity as sent on the stream: the bootstrap's id, cluster, metadata and locality, our user agent. */
  public static Node node(Node bootstrapNode) {
    String version = DynamicResourcesTranslator.class.getPackage().getImplementationVersion();
    return Node.newBuilder()
        .setId(bootstrapNode.getId())
        .setCluster(bootstrapNode.getCluster())
        .setMetadata(bootstrapNode.getMetadata())
        .setLocality(bootstrapNode.getLocality())
        .setUserAgentName(USER_AGENT_NAME)
        .setUserAgentVersion(version != null ? version : "dev")
        .build();
  }

  private static List<XdsServer> servers(GrpcService service, String path, Map<String, ClusterConfig> staticClusters)
      throws ConfigException {
    onlyFields(service, path, Set.of("envoy_grpc", "google_grpc", "initial_metadata", "timeout"));
    List<Header> metadata = new ArrayList<>();
    for (int i = 0; i < service.getInitialMetadataCount(); i++) {
      metadata.add(header(service.getInitialMetadata(i), path + ".initial_metadata[" + i + "]"));
    }
    if (service.hasEnvoyGrpc()) {
      String at = path + ".envoy_grpc";
      GrpcService.EnvoyGrpc envoyGrpc = service.getEnvoyGrpc();
      onlyFields(envoyGrpc, at, Set.of("cluster_name"));
      String name = envoyGrpc.getClusterName();
      if (name.isEmpty()) {
        throw new ConfigException(at + ".cluster_name", "cluster_name is required");
      }
      ClusterConfig cluster = staticClusters.get(name);
      if (cluster == null) {
        throw new ConfigException(at + ".cluster_name", "no static cluster named \"" + name
            + "\" (the xDS server's cluster must be in static_resources.clusters)");
      }
      if (cluster.protocol() != ClusterConfig.UpstreamProtocol.HTTP2) {
        throw new ConfigException(at + ".cluster_name", "cluster \"" + name
            + "\" must use HTTP/2 (gRPC needs it: set typed_extension_protocol_options with http2_protocol_options)");
      }
      if (cluster.endpoints().isEmpty()) {
        throw new ConfigException(at + ".cluster_name", "cluster \"" + name + "\" has no endpoints");
      }
      List<XdsServer> servers = new ArrayList<>();
      for (ClusterConfig.Endpoint endpoint : cluster.endpoints()) {
        servers.add(new XdsServer(endpoint.address().host(), endpoint.address().port(), metadata));
      }
      return servers;
    }
    if (service.hasGoogleGrpc()) {
      String at = path + ".google_grpc";
      GrpcService.GoogleGrpc googleGrpc = service.getGoogleGrpc();
      onlyFields(googleGrpc, at, Set.of("target_uri", "stat_prefix", "channel_credentials"));
      Optional<XdsClientConfig.Tls> tls = googleGrpc.hasChannelCredentials()
          ? Optional.of(tls(googleGrpc.getChannelCredentials(), at + ".channel_credentials"))
          : Optional.empty();
      XdsServer server = target(googleGrpc.getTargetUri(), at + ".target_uri", metadata);
      return List.of(new XdsServer(server.host(), server.port(), metadata, tls));
    }
    throw new ConfigException(path, "envoy_grpc or google_grpc is required");
  }

  private static XdsClientConfig.Tls tls(GrpcService.GoogleGrpc.ChannelCredentials credentials, String path)
      throws ConfigException {
    onlyFields(credentials, path, Set.of("ssl_credentials"));
    if (!credentials.hasSslCredentials()) {
      throw new ConfigException(path, "only ssl_credentials is supported");
    }
    String at = path + ".ssl_credentials";
    GrpcService.GoogleGrpc.SslCredentials ssl = credentials.getSslCredentials();
    onlyFields(ssl, at, Set.of("root_certs", "cert_chain", "private_key"));
    ByteString roots = ssl.hasRootCerts() ? pem(ssl.getRootCerts(), at + ".root_certs") : ByteString.EMPTY;
    ByteString chain = ssl.hasCertChain() ? pem(ssl.getCertChain(), at + ".cert_chain") : ByteString.EMPTY;
    ByteString key = ssl.hasPrivateKey() ? pem(ssl.getPrivateKey(), at + ".private_key") : ByteString.EMPTY;
    if (chain.isEmpty() != key.isEmpty()) {
      throw new ConfigException(at, "cert_chain and private_key go together");
    }
    XdsClientConfig.Tls tls = new XdsClientConfig.Tls(roots, chain, key);
    try {
      certificates(roots, at + ".root_certs");
      certificates(chain, at + ".cert_chain");
      tls.channelCredentials();
    } catch (RuntimeException e) {
      throw new ConfigException(at, "unusable certificates or key: " + e.getMessage());
    }
    return tls;
  }

  /** Checks that non-empty PEM holds at least one X.509 certificate. */
  private static void certificates(ByteString pem, String path) throws ConfigException {
    if (pem.isEmpty()) {
      return;
    }
    try {
      if (java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(pem.newInput()).isEmpty()) {
        throw new ConfigException(path, "holds no PEM certificate");
      }
    } catch (java.security.cert.CertificateException e) {
      throw new ConfigException(path, "holds no usable PEM certificate: " + e.getMessage());
    }
  }

  /** A DataSource's bytes: {@code filename}, {@code inline_string} or {@code inline_bytes}. */
  private static ByteString pem(DataSource source, String path) throws ConfigException {
    onlyFields(source, path, Set.of("filename", "inline_string", "inline_bytes"));
    return switch (source.getSpecifierCase()) {
      case FILENAME -> {
        try {
          yield ByteString.copyFrom(Files.readAllBytes(Path.of(source.getFilename())));
        } catch (IOException | RuntimeException e) {
          throw new ConfigException(path + ".filename", "cannot read " + source.getFilename() + ": " + e.getMessage());
        }
      }
      case INLINE_STRING -> ByteString.copyFromUtf8(source.getInlineString());
      case INLINE_BYTES -> source.getInlineBytes();
      default -> throw new ConfigException(path, "filename, inline_string or inline_bytes is required");
    };
  }

  private static XdsServer target(String uri, String path, List<Header> metadata) throws ConfigException {
    String text = uri.startsWith("dns:///") ? uri.substring("dns:///".length()) : uri;
    int colon = text.lastIndexOf(':');
    if (text.isEmpty() || colon <= 0 || colon == text.length() - 1) {
      throw new ConfigException(path, "\"" + uri + "\" is not host:port");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0 || host.indexOf('/') >= 0) {
      throw new ConfigException(path, "\"" + uri + "\" is not host:port");
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new ConfigException(path, "\"" + uri + "\" is not host:port");
    }
    if (port < 1 || port > 65_535) {
      throw new ConfigException(path, "port " + port + " is out of range");
    }
    return new XdsServer(host, port, metadata);
  }

  private static Header header(HeaderValue header, String path) throws ConfigException {
    onlyFields(header, path, Set.of("key", "value"));
    String key = header.getKey().toLowerCase(Locale.ROOT);
    if (!HEADER_KEY.matcher(key).matches() || key.endsWith("-bin")) {
      // The value is never echoed: it is often a credential.
      throw new ConfigException(path + ".key", "\"" + header.getKey() + "\" is not a valid ASCII gRPC metadata key");
    }
    return new Header(key, header.getValue());
  }

  /** A {@code cds_config} / {@code lds_config} / {@code rtds_config}: must be {@code ads: {}}; returns its initial fetch timeout. */
  static Duration adsConfigSource(boolean present, ConfigSource source, String path) throws ConfigException {
    if (!present) {
      throw new ConfigException(path, path.substring(path.lastIndexOf('.') + 1)
          + " is required and must be ads: {} (the edge subscribes to it over the ADS stream)");
    }
    onlyFields(source, path, Set.of("ads", "initial_fetch_timeout", "resource_api_version"));
    if (!source.hasAds()) {
      throw new ConfigException(path, "only ads: {} is supported");
    }
    onlyFields(source.getAds(), path + ".ads", Set.of());
    if (source.getResourceApiVersion() != ApiVersion.V3 && source.getResourceApiVersion() != ApiVersion.AUTO) {
      throw new ConfigException(path + ".resource_api_version", source.getResourceApiVersion() + " is not supported (set V3)");
    }
    if (!source.hasInitialFetchTimeout()) {
      return XdsClientConfig.DEFAULT_INITIAL_FETCH_TIMEOUT;
    }
    com.google.protobuf.Duration value = source.getInitialFetchTimeout();
    Duration timeout = Duration.ofSeconds(value.getSeconds(), value.getNanos());
    if (timeout.isNegative() || timeout.isZero()) {
      // Envoy reads 0 as "wait forever"; an edge must be able to start from its last-known-good state.
      throw new ConfigException(path + ".initial_fetch_timeout", "must be positive");
    }
    return timeout;
  }

  /** Rejects the first set field outside {@code supported}, in declaration order, with its path. */
  private static void onlyFields(MessageOrBuilder message, String path, Set<String> supported) throws ConfigException {
    Map<FieldDescriptor, Object> set = message.getAllFields();
    for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
      if (set.containsKey(field) && !supported.contains(field.getName())) {
        String name = field.getName();
        throw new ConfigException(path + "." + name, name + " is not supported");
      }
    }
  }
}
