package io.spillway.edge.config;

import io.spillway.edge.config.Route.StringMatch;
import java.time.Duration;
import java.util.List;

/**
 * Envoy's {@code envoy.filters.http.ext_authz} with an HTTP or a gRPC authorization service, reduced
 * to the supported subset. Header names are lower case; matchers apply to lower-case header names.
 *
 * @param service which of {@code http_service} and {@code grpc_service} is configured
 * @param cluster {@code http_service.server_uri.cluster} or {@code grpc_service.envoy_grpc.cluster_name}:
 *     the cluster the check calls go to (the HTTP calls guarded as the peer of that name)
 * @param uri {@code http_service.server_uri.uri}, kept for the config dump (Envoy does not use it
 *     to address the check either: the check keeps the request's authority); for gRPC
 *     {@code envoy_grpc.authority}, the {@code :authority} of the calls (empty = the cluster's name)
 * @param timeout {@code http_service.server_uri.timeout} or {@code grpc_service.timeout} (200 ms when
 *     unset): until the whole check response; zero = none
 * @param pathPrefix prepended to the request's path (and query) in the HTTP check request
 * @param allowedHeaders request headers copied into the check request: for HTTP on top of those
 *     Envoy always sends ({@code host}, {@code authorization}; method and path are the request
 *     line's); for gRPC the headers of the {@code CheckRequest}, empty = all of them
 * @param headersToAdd headers set on every HTTP check request; for gRPC {@code grpc_service.initial_metadata}
 * @param allowedUpstreamHeaders headers of an OK check response that are set on the upstream request
 * @param allowedClientHeaders headers of a denied check response sent to the client; empty = all but
 *     {@code host} (Envoy's default); else these plus {@code content-length}, {@code www-authenticate}
 *     and {@code location}
 * @param allowedClientHeadersOnSuccess headers of an OK check response added to the client's response
 * @param failureModeAllow let the request through when the check fails (error, timeout, 5xx, guard refusal)
 * @param failureModeAllowHeaderAdd with {@code failureModeAllow}: mark such requests with
 *     {@code x-envoy-auth-failure-mode-allowed: true}
 * @param statusOnError the status answered when the check fails and {@code failureModeAllow} is off (403)
 * @param statPrefix the filter's own {@code stat_prefix}: stats under {@code ext_authz.<statPrefix>.}, or
 *     empty for {@code ext_authz.}
 * @param filterName the filter's {@code name} in the connection manager: the key of the
 *     {@code typed_per_filter_config} entries that turn it off for a route or virtual host
 * @param requestBody {@code with_request_body}: the request body is buffered and sent with the check
 */
public record ExtAuthzConfig(
    String cluster,
    String uri,
    Duration timeout,
    String pathPrefix,
    List<StringMatch> allowedHeaders,
    List<Header> headersToAdd,
    List<StringMatch> allowedUpstreamHeaders,
    List<StringMatch> allowedClientHeaders,
    List<StringMatch> allowedClientHeadersOnSuccess,
    boolean failureModeAllow,
    boolean failureModeAllowHeaderAdd,
    int statusOnError,
    String statPrefix,
    String filterName,
    Service service,
    java.util.Optional<RequestBody> requestBody) implements HttpFilterConfig.Settings {

  /** Envoy's default {@code status_on_error}: 403 Forbidden. */
  public static final int DEFAULT_STATUS_ON_ERROR = 403;

  public ExtAuthzConfig {
    allowedHeaders = List.copyOf(allowedHeaders);
    headersToAdd = List.copyOf(headersToAdd);
    allowedUpstreamHeaders = List.copyOf(allowedUpstreamHeaders);
    allowedClientHeaders = List.copyOf(allowedClientHeaders);
    allowedClientHeadersOnSuccess = List.copyOf(allowedClientHeadersOnSuccess);
  }

  /** Envoy's default timeout of a gRPC check ({@code grpc_service.timeout} unset): 200 ms. */
  public static final Duration DEFAULT_GRPC_TIMEOUT = Duration.ofMillis(200);

  /** A header set on the check request; {@code name} is lower case. */
  public record Header(String name, String value) {}

  /** The kind of authorization service. */
  public enum Service {
    /** {@code http_service}: a plain HTTP request per check. */
    HTTP,
    /** {@code grpc_service.envoy_grpc}: {@code envoy.service.auth.v3.Authorization/Check}. */
    GRPC
  }

  /**
   * {@code with_request_body} ({@code BufferSettings}).
   *
   * @param maxRequestBytes at most this many body bytes are buffered and sent (greater than 0)
   * @param allowPartialMessage check with the first {@code maxRequestBytes} bytes instead of
   *     answering 413 to a larger body
   * @param packAsBytes gRPC: the body goes in {@code raw_body} (bytes) instead of {@code body} (string)
   */
  public record RequestBody(int maxRequestBytes, boolean allowPartialMessage, boolean packAsBytes) {}
}
