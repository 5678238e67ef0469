package io.spillway.edge.config;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the edge talks to its xDS servers: what {@link DynamicResourcesTranslator} made of the
 * bootstrap's {@code dynamic_resources}, plus the last-known-good directory from the command line.
 *
 * @param servers the xDS servers in order of preference (at least one); the client moves to the
 *     next one when a stream fails and wraps around
 * @param variant State-of-the-World or Delta ({@code ads_config.api_type} GRPC or DELTA_GRPC)
 * @param node the identity sent on the stream, user agent filled in
 * @param setNodeOnFirstMessageOnly send {@code node} only on a stream's first request
 * @param initialFetchTimeout how long the first round may take before the edge starts without it
 *     (from the last-known-good state if there is one); Envoy's default is 15 s
 * @param backoffBase first reconnect delay bound (default 250 ms)
 * @param backoffCap largest reconnect delay bound (default 5 s)
 * @param stateDirectory where the last-known-good state is written, if anywhere
 * @param policySubscription when to subscribe to {@code spillway.policy.v1.OverloadPolicy}: central
 *     serves it, a generic xDS server does not (java-control-plane even ends the stream when asked
 *     for a type it does not know), so by default only once the server has said it serves the type
 * @param runtimeResources the {@code envoy.service.runtime.v3.Runtime} resources the runtime's RTDS
 *     layers name, subscribed to by name; empty for none
 */
public record XdsClientConfig(
    List<XdsServer> servers,
    Variant variant,
    Node node,
    boolean setNodeOnFirstMessageOnly,
    Duration initialFetchTimeout,
    Duration backoffBase,
    Duration backoffCap,
    Optional<Path> stateDirectory,
    PolicySubscription policySubscription,
    java.util.Set<String> runtimeResources) {

  /** Envoy's default {@code initial_fetch_timeout}. */
  public static final Duration DEFAULT_INITIAL_FETCH_TIMEOUT = Duration.ofSeconds(15);
  /** The default first reconnect delay bound. */
  public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(250);
  /** The default largest reconnect delay bound. */
  public static final Duration DEFAULT_BACKOFF_CAP = Duration.ofSeconds(5);

  /** The two ADS protocol variants. */
  public enum Variant {
    /** State of the World: every response carries the whole set (CDS, LDS) or the named resources (EDS, RDS). */
    SOTW,
    /** Incremental: responses carry changed and removed resources only. */
    DELTA
  }

  /** When the client subscribes to the overload policy type on a stream. */
  public enum PolicySubscription {
    /**
     * Once a response on the stream carries a {@code control_plane.identifier} that names the
     * policy's type URL (central's do); a server that does not, is never asked for it.
     */
    ADVERTISED,
    /** From the start of every stream, whatever the server (for a server known to serve it). */
    ALWAYS,
    /** Never: the policy comes from the policy file and the environment only. */
    NEVER
  }

  /**
   * One xDS server.
   *
   * @param host IP literal or DNS name
   * @param port TCP port
   * @param initialMetadata gRPC headers sent when a stream opens (e.g. {@code authorization})
   * @param tls TLS towards the server, or empty for plaintext
   */
  public record XdsServer(String host, int port, List<Header> initialMetadata, Optional<Tls> tls) {
    public XdsServer {
      Objects.requireNonNull(host, "host");
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("port must be 1 to 65535: " + port);
      }
      initialMetadata = List.copyOf(initialMetadata);
      Objects.requireNonNull(tls, "tls");
    }

    /** A plaintext server. */
    public XdsServer(String host, int port, List<Header> initialMetadata) {
      this(host, port, initialMetadata, Optional.empty());
    }

    /** host:port, brackets around an IPv6 literal. */
    public String address() {
      return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
  }

  /**
   * TLS towards an xDS server ({@code google_grpc.channel_credentials.ssl_credentials}), PEM read
   * when the bootstrap was loaded. The key is never printed.
   *
   * @param rootCerts the CAs that sign the server's certificate; empty = the JDK's trust store
   * @param certChain the client certificate chain, empty for none
   * @param privateKey the client key, empty when there is no chain
   */
  public record Tls(ByteString rootCerts, ByteString certChain, ByteString privateKey) {
    public Tls {
      Objects.requireNonNull(rootCerts, "rootCerts");
      Objects.requireNonNull(certChain, "certChain");
      Objects.requireNonNull(privateKey, "privateKey");
      if (certChain.isEmpty() != privateKey.isEmpty()) {
        throw new IllegalArgumentException("a client certificate chain needs its private key and the other way round");
      }
    }

    /** gRPC's channel credentials for this material; unusable certificates or keys fail here. */
    public io.grpc.ChannelCredentials channelCredentials() {
      io.grpc.TlsChannelCredentials.Builder builder = io.grpc.TlsChannelCredentials.newBuilder();
      try {
        if (!rootCerts.isEmpty()) {
          builder.trustManager(rootCerts.newInput());
        }
        if (!certChain.isEmpty()) {
          builder.keyManager(certChain.newInput(), privateKey.newInput());
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("unusable TLS material for the xDS server", e);
      }
      return builder.build();
    }

    @Override
    public String toString() {
      return "Tls[rootCerts=" + (rootCerts.isEmpty() ? "system" : rootCerts.size() + " bytes")
          + ", clientCertificate=" + !certChain.isEmpty() + "]";
    }
  }

  /** A gRPC header; its value is never printed, since it is often a credential. */
  public record Header(String key, String value) {
    public Header {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
      return key + ": <redacted>";
    }
  }

  public XdsClientConfig {
    runtimeResources = java.util.Set.copyOf(runtimeResources);
    servers = List.copyOf(servers);
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("at least one xDS server is needed");
    }
    Objects.requireNonNull(variant, "variant");
    Objects.requireNonNull(node, "node");
    requirePositive(initialFetchTimeout, "initialFetchTimeout");
    requirePositive(backoffBase, "backoffBase");
    requirePositive(backoffCap, "backoffCap");
    if (backoffCap.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException("backoffCap must be at least backoffBase");
    }
    Objects.requireNonNull(stateDirectory, "stateDirectory");
    Objects.requireNonNull(policySubscription, "policySubscription");
  }

  /** A config that subscribes to the overload policy when the server advertises it. */
  public XdsClientConfig(List<XdsServer> servers, Variant variant, Node node, boolean setNodeOnFirstMessageOnly,
      Duration initialFetchTimeout, Duration backoffBase, Duration backoffCap, Optional<Path> stateDirectory) {
    this(servers, variant, node, setNodeOnFirstMessageOnly, initialFetchTimeout, backoffBase, backoffCap,
        stateDirectory, PolicySubscription.ADVERTISED);
  }

  /** The same config writing its last-known-good state to {@code directory}. */
  /** Without RTDS subscriptions. */
  public XdsClientConfig(List<XdsServer> servers, Variant variant, Node node, boolean setNodeOnFirstMessageOnly,
      Duration initialFetchTimeout, Duration backoffBase, Duration backoffCap, Optional<Path> stateDirectory,
      PolicySubscription policySubscription) {
    this(servers, variant, node, setNodeOnFirstMessageOnly, initialFetchTimeout, backoffBase, backoffCap,
        stateDirectory, policySubscription, java.util.Set.of());
  }

  public XdsClientConfig withStateDirectory(Path directory) {
    return new XdsClientConfig(servers, variant, node, setNodeOnFirstMessageOnly, initialFetchTimeout,
        backoffBase, backoffCap, Optional.of(directory), policySubscription, runtimeResources);
  }

  /** The same config with another node identity (command-line overrides, reported metadata). */
  public XdsClientConfig withNode(Node newNode) {
    return new XdsClientConfig(servers, variant, newNode, setNodeOnFirstMessageOnly, initialFetchTimeout,
        backoffBase, backoffCap, stateDirectory, policySubscription, runtimeResources);
  }

  /** The same config with other reconnect delay bounds. */
  public XdsClientConfig withBackoff(Duration base, Duration cap) {
    return new XdsClientConfig(servers, variant, node, setNodeOnFirstMessageOnly, initialFetchTimeout,
        base, cap, stateDirectory, policySubscription, runtimeResources);
  }

  /** The same config with another initial fetch timeout. */
  public XdsClientConfig withInitialFetchTimeout(Duration timeout) {
    return new XdsClientConfig(servers, variant, node, setNodeOnFirstMessageOnly, timeout,
        backoffBase, backoffCap, stateDirectory, policySubscription, runtimeResources);
  }

  /** The same config subscribing to these {@code envoy.service.runtime.v3.Runtime} resources (RTDS layers). */
  public XdsClientConfig withRuntimeResources(java.util.Set<String> names) {
    return new XdsClientConfig(servers, variant, node, setNodeOnFirstMessageOnly, initialFetchTimeout,
        backoffBase, backoffCap, stateDirectory, policySubscription, names);
  }

  /** The same config without the overload policy subscription (the policy comes from elsewhere). */
  public XdsClientConfig withoutOverloadPolicy() {
    return withPolicySubscription(PolicySubscription.NEVER);
  }

  /** The same config subscribing to the overload policy as {@code subscription} says. */
  public XdsClientConfig withPolicySubscription(PolicySubscription subscription) {
    return new XdsClientConfig(servers, variant, node, setNodeOnFirstMessageOnly, initialFetchTimeout,
        backoffBase, backoffCap, stateDirectory, subscription, runtimeResources);
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }
}
