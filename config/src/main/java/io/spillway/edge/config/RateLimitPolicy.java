package io.spillway.edge.config;

import java.util.List;

/**
 * One of Envoy's {@code RateLimit} entries (a route's or virtual host's {@code rate_limits}, or a
 * rate limit filter's own): the actions whose entries make up one request descriptor.
 *
 * @param stage the filter stage it applies to (0 unless set)
 * @param actions in order; every action must yield its entry, or the request gets no descriptor
 *     from this entry
 */
public record RateLimitPolicy(int stage, List<Action> actions) {

  public RateLimitPolicy {
    actions = List.copyOf(actions);
  }

  /** One {@code key: value} of a descriptor. */
  public record Entry(String key, String value) {}

  /** Envoy's {@code VhRateLimitsOptions}: whether a virtual host's entries count with the route's. */
  public enum VhRateLimits {
    /** The virtual host's entries only when the route has none (Envoy's default). */
    OVERRIDE,
    /** The route's entries and the virtual host's. */
    INCLUDE,
    /** The route's entries only. */
    IGNORE
  }

  /** A descriptor entry taken from the request. */
  public sealed interface Action {}

  /**
   * The value of a request header under {@code descriptorKey}; without the header the descriptor
   * is not produced, unless {@code skipIfAbsent}, which leaves this entry out.
   *
   * @param headerName lower case
   */
  public record RequestHeaders(String headerName, String descriptorKey, boolean skipIfAbsent) implements Action {}

  /** {@code remote_address}: the client's IP address. */
  public record RemoteAddress() implements Action {}

  /** {@code <descriptorKey>: <descriptorValue>} ({@code generic_key} by default). */
  public record GenericKey(String descriptorKey, String descriptorValue) implements Action {}

  /**
   * {@code <descriptorKey>: <descriptorValue>} ({@code header_match} by default) when the request's
   * headers all match (or, with {@code expectMatch} false, do not all match); else no descriptor.
   */
  public record HeaderValueMatch(String descriptorKey, String descriptorValue, boolean expectMatch,
      List<Route.HeaderMatch> headers) implements Action {
    public HeaderValueMatch {
      headers = List.copyOf(headers);
    }
  }

  /**
   * {@code destination_cluster}: the route's cluster. Known before the router runs only for a
   * route with one {@code cluster} or a {@code cluster_header}; other routes get no descriptor.
   */
  public record DestinationCluster() implements Action {}

  /**
   * {@code source_cluster}: the edge's own cluster ({@code node.cluster}, Envoy's
   * {@code --service-cluster}); without one the request gets no descriptor from this entry.
   */
  public record SourceCluster() implements Action {}
}
