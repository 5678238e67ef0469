package io.spillway.edge.config;

import java.util.List;

/**
 * Envoy's RouteConfiguration: virtual hosts plus connection-manager-wide header mutations.
 *
 * @param name route configuration name
 * @param virtualHosts virtual hosts; domains are unique across them
 * @param requestHeaders mutations applied to every request sent upstream
 * @param responseHeaders mutations applied to every response sent downstream
 */
public record RouteConfig(
    String name,
    List<VirtualHost> virtualHosts,
    HeaderMutations requestHeaders,
    HeaderMutations responseHeaders) {

  public RouteConfig {
    virtualHosts = List.copyOf(virtualHosts);
  }

  /**
   * A virtual host.
   *
   * @param domains exact names, {@code *.suffix}, {@code prefix.*} or {@code *}; an entry may carry a port
   * @param retryPolicy default retry policy of its routes, {@link RetryPolicy#NONE} when unset
   */
  public record VirtualHost(
      String name,
      List<String> domains,
      List<Route> routes,
      HeaderMutations requestHeaders,
      HeaderMutations responseHeaders,
      RetryPolicy retryPolicy) {
    public VirtualHost {
      domains = List.copyOf(domains);
      routes = List.copyOf(routes);
    }
  }
}
