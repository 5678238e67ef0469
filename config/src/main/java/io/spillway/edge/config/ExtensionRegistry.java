package io.spillway.edge.config;

import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.overload.v3.ScaleTimersOverloadActionConfig;
import io.envoyproxy.envoy.config.route.v3.FilterConfig;
import io.envoyproxy.envoy.extensions.access_loggers.file.v3.FileAccessLog;
import io.envoyproxy.envoy.extensions.access_loggers.stream.v3.StderrAccessLog;
import io.envoyproxy.envoy.extensions.access_loggers.stream.v3.StdoutAccessLog;
import io.envoyproxy.envoy.extensions.compression.brotli.compressor.v3.Brotli;
import io.envoyproxy.envoy.extensions.compression.gzip.compressor.v3.Gzip;
import io.envoyproxy.envoy.extensions.compression.zstd.compressor.v3.Zstd;
import io.envoyproxy.envoy.extensions.filters.http.buffer.v3.Buffer;
import io.envoyproxy.envoy.extensions.filters.http.cors.v3.Cors;
import io.envoyproxy.envoy.extensions.filters.http.cors.v3.CorsPolicy;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.Compressor;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.CompressorPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.ExtAuthz;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.listener.http_inspector.v3.HttpInspector;
import io.envoyproxy.envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.resource_monitors.cpu_utilization.v3.CpuUtilizationConfig;
import io.envoyproxy.envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig;
import io.envoyproxy.envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig;
import io.envoyproxy.envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code typed_config} types Spillway accepts, each under Envoy's extension name and with the
 * slot ({@link Category}) it may fill. Immutable; {@link #standard()} is the registry the edge
 * runs with. A {@code @type} that is not registered is a load-time error, and so is a registered
 * type in the wrong slot (a router where the network filter belongs, say), both with the path of
 * the {@code typed_config} field.
 *
 * <p>Accepted here does not always mean acted upon: listener filters and the overload manager's
 * monitors and actions are registered so that bootstraps using them parse; the translator says
 * which of them it ignores or rejects. The access loggers registered here are all implemented.
 */
public final class ExtensionRegistry {

  /** The slot an extension fills in the configuration. */
  public enum Category {
    NETWORK_FILTER,
    HTTP_FILTER,
    LISTENER_FILTER,
    TRANSPORT_SOCKET,
    /** A cluster's {@code transport_socket}. */
    UPSTREAM_TRANSPORT_SOCKET,
    UPSTREAM_PROTOCOL_OPTIONS,
    ACCESS_LOGGER,
    RESOURCE_MONITOR,
    OVERLOAD_ACTION,
    /** A route's or virtual host's {@code typed_per_filter_config} value. */
    PER_ROUTE_FILTER_CONFIG,
    /** A policy of a cluster's {@code load_balancing_policy}. */
    LOAD_BALANCING_POLICY,
    /** The {@code compressor_library} of a compressor filter. */
    COMPRESSOR_LIBRARY,
    /** The {@code decompressor_library} of a decompressor filter. */
    DECOMPRESSOR_LIBRARY,
    /** An entry of the bootstrap's {@code stats_sinks}. */
    STATS_SINK,
    /** The connection manager's {@code tracing.provider}. */
    TRACER,
    /** A cluster's {@code cluster_type}. */
    CLUSTER
  }

  /**
   * One registered extension.
   *
   * @param name Envoy's extension name, e.g. {@code envoy.filters.http.router}
   * @param category the slot it fills
   * @param defaultInstance the default instance of its config message
   * @param nameSuffices whether an entry may name it without a {@code typed_config} (its default
   *     config is complete), see {@link #select}
   */
  public record Extension(String name, Category category, Message defaultInstance, boolean nameSuffices) {

    /** An extension that needs its {@code typed_config}. */
    public Extension(String name, Category category, Message defaultInstance) {
      this(name, category, defaultInstance, false);
    }

    /** The full proto name of the config message, which follows the last '/' of a type URL. */
    public String typeName() {
      return defaultInstance.getDescriptorForType().getFullName();
    }

    /** The canonical type URL, {@code type.googleapis.com/<typeName>}. */
    public String typeUrl() {
      return "type.googleapis.com/" + typeName();
    }
  }

  /** Envoy's name of the HTTP connection manager network filter. */
  public static final String HTTP_CONNECTION_MANAGER = "envoy.filters.network.http_connection_manager";
  /** Envoy's name of the TCP proxy network filter. */
  public static final String TCP_PROXY = "envoy.filters.network.tcp_proxy";
  /** Envoy's name of the TLS inspector listener filter. */
  public static final String TLS_INSPECTOR = "envoy.filters.listener.tls_inspector";
  /** Envoy's name of the router HTTP filter. */
  public static final String ROUTER = "envoy.filters.http.router";
  /** Envoy's name of the buffer HTTP filter. */
  public static final String BUFFER = "envoy.filters.http.buffer";
  /** Envoy's name of the external authorization HTTP filter. */
  public static final String EXT_AUTHZ = "envoy.filters.http.ext_authz";
  /** Envoy's name of the local rate limit HTTP filter. */
  public static final String LOCAL_RATELIMIT = "envoy.filters.http.local_ratelimit";
  /** Envoy's name of the global rate limit HTTP filter (a rate limit service over gRPC). */
  public static final String RATELIMIT = "envoy.filters.http.ratelimit";
  /** Envoy's name of the CSRF HTTP filter. */
  public static final String CSRF = "envoy.filters.http.csrf";
  /** Envoy's name of the decompressor HTTP filter. */
  public static final String DECOMPRESSOR = "envoy.filters.http.decompressor";
  /** Envoy's name of the CORS HTTP filter. */
  public static final String CORS = "envoy.filters.http.cors";
  /** Envoy's name of the compressor HTTP filter. */
  public static final String COMPRESSOR = "envoy.filters.http.compressor";
  /** Envoy's name of the fault injection HTTP filter. */
  public static final String FAULT = "envoy.filters.http.fault";
  /** Envoy's name of the JWT authentication HTTP filter. */
  public static final String JWT_AUTHN = "envoy.filters.http.jwt_authn";
  /** Envoy's name of the health check HTTP filter. */
  public static final String HEALTH_CHECK = "envoy.filters.http.health_check";
  /** Envoy's name of the role-based access control HTTP filter. */
  public static final String RBAC = "envoy.filters.http.rbac";
  /** Envoy's name of the Lua HTTP filter. */
  public static final String LUA = "envoy.filters.http.lua";
  /** Envoy's name of the header-to-metadata HTTP filter. */
  public static final String HEADER_TO_METADATA = "envoy.filters.http.header_to_metadata";
  /** Envoy's name of the gRPC-Web HTTP filter. */
  public static final String GRPC_WEB = "envoy.filters.http.grpc_web";
  /** Envoy's name of the TLS transport socket. */
  public static final String TLS_TRANSPORT_SOCKET = "envoy.transport_sockets.tls";
  /** The {@code typed_extension_protocol_options} key of upstream HTTP protocol options. */
  public static final String UPSTREAM_HTTP_PROTOCOL_OPTIONS = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";
  /** Envoy's name of the UDP statsd stats sink. */
  public static final String STATSD_SINK = "envoy.stat_sinks.statsd";
  /** Envoy's name of the DogStatsD stats sink. */
  public static final String DOG_STATSD_SINK = "envoy.stat_sinks.dog_statsd";
  public static final String LB_ROUND_ROBIN = "envoy.load_balancing_policies.round_robin";
  public static final String LB_LEAST_REQUEST = "envoy.load_balancing_policies.least_request";
  public static final String LB_RANDOM = "envoy.load_balancing_policies.random";
  public static final String LB_CLIENT_SIDE_WEIGHTED_ROUND_ROBIN =
      "envoy.load_balancing_policies.client_side_weighted_round_robin";
  public static final String LB_RING_HASH = "envoy.load_balancing_policies.ring_hash";
  public static final String LB_MAGLEV = "envoy.load_balancing_policies.maglev";
  /** Spillway's pressure-aware policy ({@code spillway.edge.lb.v1.Pressure}). */
  public static final String LB_PRESSURE = "spillway.load_balancing_policies.pressure";

  private static final List<com.google.protobuf.Descriptors.Descriptor> CORE_ANY_TYPES = List.of(
      io.envoyproxy.envoy.type.matcher.v3.HttpRequestHeaderMatchInput.getDescriptor(),
      io.envoyproxy.envoy.type.matcher.v3.HttpRequestTrailerMatchInput.getDescriptor(),
      io.envoyproxy.envoy.type.matcher.v3.HttpResponseHeaderMatchInput.getDescriptor(),
      io.envoyproxy.envoy.type.matcher.v3.HttpResponseTrailerMatchInput.getDescriptor(),
      io.envoyproxy.envoy.type.matcher.v3.HttpRequestQueryParamMatchInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.DestinationIPInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.DestinationPortInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.SourceIPInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.SourcePortInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.DirectSourceIPInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.SourceTypeInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.ServerNameInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.TransportProtocolInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.ApplicationProtocolInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.FilterStateInput.getDescriptor(),
      io.envoyproxy.envoy.extensions.matching.common_inputs.network.v3.DynamicMetadataInput.getDescriptor(),
      io.envoyproxy.envoy.config.rbac.v3.Action.getDescriptor(),
      io.envoyproxy.envoy.config.core.v3.PerHostConfig.getDescriptor());

  private static final ExtensionRegistry STANDARD = builder()
      .add(HTTP_CONNECTION_MANAGER, Category.NETWORK_FILTER, HttpConnectionManager.getDefaultInstance())
      .add(TCP_PROXY, Category.NETWORK_FILTER,
          io.envoyproxy.envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.getDefaultInstance())
      .addNameSuffices(ROUTER, Category.HTTP_FILTER, Router.getDefaultInstance())
      .add(BUFFER, Category.HTTP_FILTER, Buffer.getDefaultInstance())
      .add(EXT_AUTHZ, Category.HTTP_FILTER, ExtAuthz.getDefaultInstance())
      .add(EXT_AUTHZ + ".per_route", Category.PER_ROUTE_FILTER_CONFIG, ExtAuthzPerRoute.getDefaultInstance())
      .add(LOCAL_RATELIMIT, Category.HTTP_FILTER, LocalRateLimit.getDefaultInstance())
      .add(RATELIMIT, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimit.getDefaultInstance())
      .add(RATELIMIT + ".per_route", Category.PER_ROUTE_FILTER_CONFIG,
          io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute.getDefaultInstance())
      .addNameSuffices(CORS, Category.HTTP_FILTER, Cors.getDefaultInstance())
      .add(CORS + ".per_route", Category.PER_ROUTE_FILTER_CONFIG, CorsPolicy.getDefaultInstance())
      .add(COMPRESSOR, Category.HTTP_FILTER, Compressor.getDefaultInstance())
      .add(CSRF, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.csrf.v3.CsrfPolicy.getDefaultInstance())
      .addNameSuffices(GRPC_WEB, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.grpc_web.v3.GrpcWeb.getDefaultInstance())
      .add(HEALTH_CHECK, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.health_check.v3.HealthCheck.getDefaultInstance())
      .add(FAULT, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault.getDefaultInstance())
      .add(HEADER_TO_METADATA, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.header_to_metadata.v3.Config.getDefaultInstance())
      .add(RBAC, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC.getDefaultInstance())
      .add(RBAC + ".per_route", Category.PER_ROUTE_FILTER_CONFIG,
          io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBACPerRoute.getDefaultInstance())
      .add(LUA, Category.HTTP_FILTER, io.envoyproxy.envoy.extensions.filters.http.lua.v3.Lua.getDefaultInstance())
      .add(LUA + ".per_route", Category.PER_ROUTE_FILTER_CONFIG,
          io.envoyproxy.envoy.extensions.filters.http.lua.v3.LuaPerRoute.getDefaultInstance())
      .add(JWT_AUTHN, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication.getDefaultInstance())
      .add(JWT_AUTHN + ".per_route", Category.PER_ROUTE_FILTER_CONFIG,
          io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig.getDefaultInstance())
      .add(COMPRESSOR + ".per_route", Category.PER_ROUTE_FILTER_CONFIG, CompressorPerRoute.getDefaultInstance())
      .add("envoy.compression.gzip.compressor", Category.COMPRESSOR_LIBRARY, Gzip.getDefaultInstance())
      .add("envoy.compression.zstd.compressor", Category.COMPRESSOR_LIBRARY, Zstd.getDefaultInstance())
      // Registered so that its refusal names the library; the translator refuses it.
      .add("envoy.compression.brotli.compressor", Category.COMPRESSOR_LIBRARY, Brotli.getDefaultInstance())
      .add(DECOMPRESSOR, Category.HTTP_FILTER,
          io.envoyproxy.envoy.extensions.filters.http.decompressor.v3.Decompressor.getDefaultInstance())
      .add("envoy.compression.gzip.decompressor", Category.DECOMPRESSOR_LIBRARY,
          io.envoyproxy.envoy.extensions.compression.gzip.decompressor.v3.Gzip.getDefaultInstance())
      .add("envoy.compression.brotli.decompressor", Category.DECOMPRESSOR_LIBRARY,
          io.envoyproxy.envoy.extensions.compression.brotli.decompressor.v3.Brotli.getDefaultInstance())
      .add("envoy.compression.zstd.decompressor", Category.DECOMPRESSOR_LIBRARY,
          io.envoyproxy.envoy.extensions.compression.zstd.decompressor.v3.Zstd.getDefaultInstance())
      .add("envoy.config.route.v3.FilterConfig", Category.PER_ROUTE_FILTER_CONFIG, FilterConfig.getDefaultInstance())
      .add(TLS_TRANSPORT_SOCKET, Category.TRANSPORT_SOCKET, DownstreamTlsContext.getDefaultInstance())
      // The same extension on a cluster; registered under its own key because names are unique here.
      .add(TLS_TRANSPORT_SOCKET + ".upstream", Category.UPSTREAM_TRANSPORT_SOCKET,
          io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.getDefaultInstance())
      .add(UPSTREAM_HTTP_PROTOCOL_OPTIONS, Category.UPSTREAM_PROTOCOL_OPTIONS,
          HttpProtocolOptions.getDefaultInstance())
      .addNameSuffices(TLS_INSPECTOR, Category.LISTENER_FILTER,
          TlsInspector.getDefaultInstance())
      .addNameSuffices("envoy.filters.listener.http_inspector", Category.LISTENER_FILTER,
          HttpInspector.getDefaultInstance())
      .add("envoy.access_loggers.file", Category.ACCESS_LOGGER, FileAccessLog.getDefaultInstance())
      .add("envoy.access_loggers.stdout", Category.ACCESS_LOGGER, StdoutAccessLog.getDefaultInstance())
      .add("envoy.access_loggers.stderr", Category.ACCESS_LOGGER, StderrAccessLog.getDefaultInstance())
      .add("envoy.resource_monitors.fixed_heap", Category.RESOURCE_MONITOR, FixedHeapConfig.getDefaultInstance())
      .add("envoy.resource_monitors.injected_resource", Category.RESOURCE_MONITOR,
          InjectedResourceConfig.getDefaultInstance())
      .add("envoy.resource_monitors.global_downstream_max_connections", Category.RESOURCE_MONITOR,
          DownstreamConnectionsConfig.getDefaultInstance())
      .add("envoy.resource_monitors.cpu_utilization", Category.RESOURCE_MONITOR,
          CpuUtilizationConfig.getDefaultInstance())
      .add(LB_ROUND_ROBIN, Category.LOAD_BALANCING_POLICY,
          io.envoyproxy.envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin.getDefaultInstance())
      .add(LB_LEAST_REQUEST, Category.LOAD_BALANCING_POLICY,
          io.envoyproxy.envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest.getDefaultInstance())
      .add(LB_RANDOM, Category.LOAD_BALANCING_POLICY,
          io.envoyproxy.envoy.extensions.load_balancing_policies.random.v3.Random.getDefaultInstance())
      .add(LB_CLIENT_SIDE_WEIGHTED_ROUND_ROBIN, Category.LOAD_BALANCING_POLICY,
          io.envoyproxy.envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3
              .ClientSideWeightedRoundRobin.getDefaultInstance())
      .add(LB_RING_HASH, Category.LOAD_BALANCING_POLICY,
          io.envoyproxy.envoy.extensions.load_balancing_policies.ring_hash.v3.RingHash.getDefaultInstance())
      .add(LB_MAGLEV, Category.LOAD_BALANCING_POLICY,
          io.envoyproxy.envoy.extensions.load_balancing_policies.maglev.v3.Maglev.getDefaultInstance())
      .add(LB_PRESSURE, Category.LOAD_BALANCING_POLICY, io.spillway.edge.config.lb.Pressure.getDefaultInstance())
      .add(DnsSettingsTranslator.DNS_CLUSTER, Category.CLUSTER,
          io.envoyproxy.envoy.extensions.clusters.dns.v3.DnsCluster.getDefaultInstance())
      .add(TracingTranslator.ZIPKIN, Category.TRACER,
          io.envoyproxy.envoy.config.trace.v3.ZipkinConfig.getDefaultInstance())
      // Registered so that its refusal names the tracer; the translator refuses it.
      .add(TracingTranslator.OPENTELEMETRY, Category.TRACER,
          io.envoyproxy.envoy.config.trace.v3.OpenTelemetryConfig.getDefaultInstance())
      .add(STATSD_SINK, Category.STATS_SINK, io.envoyproxy.envoy.config.metrics.v3.StatsdSink.getDefaultInstance())
      .add(DOG_STATSD_SINK, Category.STATS_SINK,
          io.envoyproxy.envoy.config.metrics.v3.DogStatsdSink.getDefaultInstance())
      .add("envoy.overload_actions.reduce_timeouts", Category.OVERLOAD_ACTION,
          ScaleTimersOverloadActionConfig.getDefaultInstance())
      // Struct-typed configs: cgroup_memory, shrink_heap and Spillway's own monitors.
      .add("spillway.resource_monitors.struct_config", Category.RESOURCE_MONITOR,
          com.google.protobuf.Struct.getDefaultInstance())
      .build();

  /** The two TypedStruct messages Envoy unwraps: the current one and its udpa predecessor. */
  private static final Set<String> TYPED_STRUCTS = Set.of(
      com.github.xds.type.v3.TypedStruct.getDescriptor().getFullName(),
      com.github.udpa.udpa.type.v1.TypedStruct.getDescriptor().getFullName());

  /**
   * Envoy's former names of extensions registered here. Envoy no longer resolves them (nor any
   * name, when a typed_config gives the type); they are named in the error to say what to write.
   */
  private static final Map<String, String> FORMER_NAMES = Map.ofEntries(
      Map.entry("envoy.router", ROUTER),
      Map.entry("envoy.buffer", BUFFER),
      Map.entry("envoy.ext_authz", EXT_AUTHZ),
      Map.entry("envoy.cors", CORS),
      Map.entry("envoy.grpc_web", GRPC_WEB),
      Map.entry("envoy.http_connection_manager", HTTP_CONNECTION_MANAGER),
      Map.entry("envoy.listener.tls_inspector", "envoy.filters.listener.tls_inspector"),
      Map.entry("envoy.listener.http_inspector", "envoy.filters.listener.http_inspector"),
      Map.entry("tls", TLS_TRANSPORT_SOCKET),
      Map.entry("envoy.statsd", STATSD_SINK),
      Map.entry("envoy.dog_statsd", DOG_STATSD_SINK));

  private final Map<String, Extension> byName;
  private final Map<String, Extension> byTypeName;
  private final JsonFormat.TypeRegistry typeRegistry;

  private ExtensionRegistry(Map<String, Extension> byName, Map<String, Extension> byTypeName) {
    this.byName = Collections.unmodifiableMap(byName);
    this.byTypeName = Collections.unmodifiableMap(byTypeName);
    JsonFormat.TypeRegistry.Builder types = JsonFormat.TypeRegistry.newBuilder();
    for (Extension e : byName.values()) {
      types.add(e.defaultInstance().getDescriptorForType());
    }
    types.add(com.github.xds.type.v3.TypedStruct.getDescriptor());
    types.add(com.github.udpa.udpa.type.v1.TypedStruct.getDescriptor());
    // Messages of Envoy's core API that sit in Any fields without being extensions (the matcher
    // API's inputs and actions, per-host metadata): known to the reader, so a file using them
    // parses and the field around them is refused by its own rule ("matcher: the xDS matcher API
    // is not supported ...") rather than as an unknown extension.
    for (com.google.protobuf.Descriptors.Descriptor d : CORE_ANY_TYPES) {
      types.add(d);
    }
    this.typeRegistry = types.build();
  }

  /** The registry the edge runs with. */
  public static ExtensionRegistry standard() {
    return STANDARD;
  }

  /** An empty builder, for tests and for later issues that register more extensions. */
  public static Builder builder() {
    return new Builder();
  }

  /** Every registered extension, in registration order. */
  public List<Extension> extensions() {
    return List.copyOf(byName.values());
  }

  /** The extension registered under Envoy's name. */
  public Optional<Extension> byName(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The extension whose config message the type URL names (any prefix up to the last '/'). */
  public Optional<Extension> byTypeUrl(String typeUrl) {
    return Optional.ofNullable(byTypeName.get(typeNameOf(typeUrl)));
  }

  /** The protobuf type registry {@code JsonFormat} needs to read {@code typed_config} fields. */
  public JsonFormat.TypeRegistry typeRegistry() {
    return typeRegistry;
  }

  /** The descriptor of a registered type URL, or null. */
  Descriptor descriptorForTypeUrl(String typeUrl) {
    String name = typeNameOf(typeUrl);
    Extension e = byTypeName.get(name);
    if (e != null) {
      return e.defaultInstance().getDescriptorForType();
    }
    for (Descriptor core : CORE_ANY_TYPES) {
      if (core.getFullName().equals(name)) {
        return core; // readable; the field holding it decides whether it is supported
      }
    }
    return null;
  }

  /**
   * The registered extension an Any holds, checked against the slot it sits in. A TypedStruct
   * holds the extension its {@code type_url} names, as Envoy's factory lookup reads it.
   *
   * @param path the path of the Any field, used in errors
   */
  Extension resolve(Any any, Category category, FieldPath path) throws ConfigException {
    if (any.getTypeUrl().isEmpty()) {
      throw new ConfigException(path, "typed_config is empty: it must name its type with \"@type\" (Envoy chooses"
          + " the extension by that type)");
    }
    String typeUrl = any.getTypeUrl();
    FieldPath typePath = path;
    if (isTypedStruct(typeUrl)) {
      typeUrl = typedStruct(any, path).getTypeUrl();
      typePath = path.field("type_url");
    }
    Extension e = byTypeName.get(typeNameOf(typeUrl));
    if (e == null) {
      throw new ConfigException(typePath, unknownTypeRule(typeUrl));
    }
    if (e.category() != category) {
      throw new ConfigException(typePath, e.typeName() + " (" + e.name() + ") cannot be used here: expected "
          + describe(category));
    }
    return e;
  }

  /**
   * Unpacks an Any that must hold exactly {@code type}; a TypedStruct's value is read as
   * {@code type} with the loader's leniencies, its fields named under {@code value}.
   */
  <T extends Message> T unpack(Any any, Class<T> type, Category category, FieldPath path) throws ConfigException {
    Extension e = resolve(any, category, path);
    String expected = com.google.protobuf.Internal.getDefaultInstance(type).getDescriptorForType().getFullName();
    if (!e.typeName().equals(expected)) {
      throw new ConfigException(path, "expected " + expected + ", got " + e.typeName());
    }
    if (isTypedStruct(any.getTypeUrl())) {
      return type.cast(BootstrapLoader.fromStruct(typedStruct(any, path).getValue(), e.defaultInstance(),
          path.field("value"), this));
    }
    try {
      return any.unpack(type);
    } catch (InvalidProtocolBufferException ex) {
      throw new ConfigException(path, "cannot decode " + e.typeName() + ": " + ex.getMessage(), ex);
    }
  }

  /**
   * The extension an entry with a {@code name} and a {@code typed_config} selects, as Envoy's
   * factory lookup selects it: by the type of the typed_config when it has one (the name is then
   * only a label). Without one — or with {@code typed_config: {}}, which names no type either —
   * older Envoy releases looked the name up, and files written for them rely on that; current
   * Envoy refuses unless {@code envoy.reloadable_features.no_extension_lookup_by_name} is false.
   * Spillway looks the name up for the extensions whose default config is complete
   * ({@link Extension#nameSuffices()}: the router, CORS, gRPC-Web, the TLS and HTTP inspectors) and asks for the
   * typed_config of the others.
   *
   * @param path the path of the entry; errors name its {@code name} or {@code typed_config}
   */
  Extension select(String name, boolean hasTypedConfig, Any typedConfig, Category category, FieldPath path)
      throws ConfigException {
    if (carriesConfig(hasTypedConfig, typedConfig)) {
      return resolve(typedConfig, category, path.field("typed_config"));
    }
    if (name.isEmpty()) {
      throw new ConfigException(path.field("name"), "name is required");
    }
    Optional<Extension> named = byName(name).filter(e -> e.category() == category);
    if (named.isPresent() && named.get().nameSuffices()) {
      return named.get();
    }
    if (named.isPresent()) {
      throw new ConfigException(path.field("typed_config"), "typed_config is required for " + name);
    }
    String former = FORMER_NAMES.get(name);
    if (former != null) {
      throw new ConfigException(path.field("name"), name + " is the former name of " + former
          + ", which Envoy no longer resolves: write " + former + " with its typed_config");
    }
    throw new ConfigException(path, name + " is not supported");
  }

  /** Whether a typed_config field carries a config: {@code typed_config: {}} carries none, as in Envoy. */
  static boolean carriesConfig(boolean hasTypedConfig, Any typedConfig) {
    return hasTypedConfig && !typedConfig.getTypeUrl().isEmpty();
  }

  /** Whether a type URL (or a bare type name) names one of the TypedStruct messages. */
  static boolean isTypedStruct(String typeUrl) {
    return TYPED_STRUCTS.contains(typeNameOf(typeUrl));
  }

  private static com.github.xds.type.v3.TypedStruct typedStruct(Any any, FieldPath path) throws ConfigException {
    try {
      // The udpa and xds messages have the same fields under the same numbers.
      return com.github.xds.type.v3.TypedStruct.parseFrom(any.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new ConfigException(path, "cannot decode a TypedStruct: " + e.getMessage(), e);
    }
  }

  /** The rule broken by a type URL that names no registered extension. */
  String unknownTypeRule(String typeUrl) {
    String typeName = typeNameOf(typeUrl);
    String rule = "unknown @type \"" + typeUrl + "\" (not an extension Spillway supports)";
    if (typeName.startsWith("envoy.config.filter.") || typeName.startsWith("envoy.api.v2.")
        || typeName.contains(".v2.") || typeName.contains(".v2alpha.")) {
      String simple = typeName.substring(typeName.lastIndexOf('.') + 1);
      List<String> likely = byTypeName.values().stream()
          .filter(e -> e.typeName().endsWith("." + simple)).map(Extension::typeUrl).toList();
      rule = "unknown @type \"" + typeUrl + "\": a v2 API type, which Envoy's v3 API no longer resolves"
          + (likely.size() == 1 ? "; write " + likely.get(0) : "");
    }
    return rule;
  }

  private static String typeNameOf(String typeUrl) {
    return typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
  }

  private static String describe(Category category) {
    return switch (category) {
      case NETWORK_FILTER -> "a network filter";
      case HTTP_FILTER -> "an HTTP filter";
      case LISTENER_FILTER -> "a listener filter";
      case TRANSPORT_SOCKET -> "a downstream transport socket";
      case UPSTREAM_TRANSPORT_SOCKET -> "an upstream transport socket";
      case UPSTREAM_PROTOCOL_OPTIONS -> "upstream protocol options";
      case ACCESS_LOGGER -> "an access logger";
      case RESOURCE_MONITOR -> "a resource monitor";
      case OVERLOAD_ACTION -> "an overload action config";
      case PER_ROUTE_FILTER_CONFIG -> "a per-route filter config";
      case LOAD_BALANCING_POLICY -> "a load balancing policy";
      case COMPRESSOR_LIBRARY -> "a compressor library";
      case DECOMPRESSOR_LIBRARY -> "a decompressor library";
      case STATS_SINK -> "a stats sink";
      case TRACER -> "a tracer";
      case CLUSTER -> "a cluster type";
    };
  }

  /** Collects extensions; {@link #build()} rejects a name or type registered twice. */
  public static final class Builder {
    private final List<Extension> extensions = new ArrayList<>();

    private Builder() {}

    /** Registers {@code defaultInstance}'s message type under Envoy's {@code name}. */
    public Builder add(String name, Category category, Message defaultInstance) {
      extensions.add(new Extension(name, category, defaultInstance));
      return this;
    }

    /** As {@link #add}, for an extension whose default config is complete: its name alone selects it. */
    public Builder addNameSuffices(String name, Category category, Message defaultInstance) {
      extensions.add(new Extension(name, category, defaultInstance, true));
      return this;
    }

    /** The immutable registry. */
    public ExtensionRegistry build() {
      Map<String, Extension> byName = new LinkedHashMap<>();
      Map<String, Extension> byTypeName = new LinkedHashMap<>();
      for (Extension e : extensions) {
        if (byName.putIfAbsent(e.name(), e) != null) {
          throw new IllegalStateException("extension " + e.name() + " registered twice");
        }
        if (byTypeName.putIfAbsent(e.typeName(), e) != null) {
          throw new IllegalStateException("type " + e.typeName() + " registered twice");
        }
      }
      return new ExtensionRegistry(byName, byTypeName);
    }
  }
}
