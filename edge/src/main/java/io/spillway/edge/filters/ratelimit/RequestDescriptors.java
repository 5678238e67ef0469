package io.spillway.edge.filters.ratelimit;

import io.spillway.edge.config.RateLimitPolicy.Entry;
import io.spillway.edge.config.RateLimitPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.router.RouteMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * A request's rate limit descriptors from {@code rate_limits} entries (Envoy's
 * {@code RateLimitPolicyEntryImpl::populateDescriptors}): each entry of the filter's stage gives one
 * descriptor, its actions' entries in order, or none when an action cannot give its entry. Shared
 * by the local rate limit filter (whose descriptors pick buckets) and the global one (whose
 * descriptors go to the rate limit service).
 */
final class RequestDescriptors {

  private RequestDescriptors() {}

  /**
   * The descriptors of a request: from the filter's own {@code rate_limits} when it has some (every
   * entry, whatever its stage), else from the route's entries of {@code stage} and (per
   * {@code vhRateLimits}, or {@code include_vh_rate_limits} on the route) its virtual host's.
   *
   * @param own the filter's (or its per-route configuration's) own {@code rate_limits}
   * @param localCluster the edge's {@code node.cluster}, for {@code source_cluster}; empty when unset
   */
  static List<List<Entry>> of(List<RateLimitPolicy> own, int stage, RateLimitPolicy.VhRateLimits vhRateLimits,
      RequestHeaders headers, String downstreamAddress, RouteEntry route, String localCluster) {
    List<List<Entry>> out = new ArrayList<>(2);
    Sources from = new Sources(headers, downstreamAddress, route, localCluster);
    if (!own.isEmpty()) {
      add(own, -1, from, out);
      return out;
    }
    if (route == null) {
      return out;
    }
    Route.RateLimits limits = route.route().rateLimits();
    add(limits.route(), stage, from, out);
    RateLimitPolicy.VhRateLimits vh = limits.includeVirtualHost() ? RateLimitPolicy.VhRateLimits.INCLUDE : vhRateLimits;
    boolean withHost = switch (vh) {
      case INCLUDE -> true;
      case IGNORE -> false;
      case OVERRIDE -> limits.route().isEmpty();
    };
    if (withHost) {
      add(limits.virtualHost(), stage, from, out);
    }
    return out;
  }

  /** What the actions read: the request, its peer, its route and the edge's own cluster. */
  private record Sources(RequestHeaders headers, String downstreamAddress, RouteEntry route, String localCluster) {}

  /** @param stage only entries of this stage; -1 for all (the filter's own entries have none) */
  private static void add(List<RateLimitPolicy> policies, int stage, Sources from, List<List<Entry>> out) {
    for (int i = 0; i < policies.size(); i++) {
      RateLimitPolicy policy = policies.get(i);
      if (stage >= 0 && policy.stage() != stage) {
        continue;
      }
      List<Entry> descriptor = descriptor(policy.actions(), from);
      if (descriptor != null && !descriptor.isEmpty()) {
        out.add(descriptor);
      }
    }
  }

  /** One entry's descriptor, or null when one of its actions cannot give its entry. */
  private static List<Entry> descriptor(List<RateLimitPolicy.Action> actions, Sources from) {
    RequestHeaders headers = from.headers();
    List<Entry> entries = new ArrayList<>(actions.size());
    for (int i = 0; i < actions.size(); i++) {
      switch (actions.get(i)) {
        case RateLimitPolicy.RequestHeaders h -> {
          String value = headers.header(h.headerName());
          if (value == null) {
            if (!h.skipIfAbsent()) {
              return null;
            }
          } else {
            entries.add(new Entry(h.descriptorKey(), value));
          }
        }
        case RateLimitPolicy.RemoteAddress r -> {
          if (from.downstreamAddress() == null || from.downstreamAddress().isEmpty()) {
            return null;
          }
          entries.add(new Entry("remote_address", from.downstreamAddress()));
        }
        case RateLimitPolicy.GenericKey g -> entries.add(new Entry(g.descriptorKey(), g.descriptorValue()));
        case RateLimitPolicy.HeaderValueMatch m -> {
          if (allMatch(m.headers(), headers) != m.expectMatch()) {
            return null;
          }
          entries.add(new Entry(m.descriptorKey(), m.descriptorValue()));
        }
        case RateLimitPolicy.DestinationCluster d -> {
          String cluster = destinationCluster(from.route(), headers);
          if (cluster == null) {
            return null;
          }
          entries.add(new Entry("destination_cluster", cluster));
        }
        case RateLimitPolicy.SourceCluster s -> {
          if (from.localCluster().isEmpty()) {
            return null;
          }
          entries.add(new Entry("source_cluster", from.localCluster()));
        }
      }
    }
    return entries;
  }

  private static boolean allMatch(List<Route.HeaderMatch> matchers, RequestHeaders headers) {
    for (int i = 0; i < matchers.size(); i++) {
      if (!RouteMatcher.headerMatches(matchers.get(i), headers)) {
        return false;
      }
    }
    return true;
  }

  /** The route's cluster when it is known before the router picks: one cluster, or the cluster header's value. */
  static String destinationCluster(RouteEntry route, RequestHeaders headers) {
    Route.RouteAction action = route == null ? null : route.routeAction();
    if (action == null) {
      return null;
    }
    if (action.clusterHeader().isPresent()) {
      return headers.header(action.clusterHeader().get());
    }
    return action.clusters().size() == 1 ? action.clusters().get(0).name() : null;
  }
}
