package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HttpUri;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.AuthorizationRequest;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.AuthorizationResponse;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.BufferSettings;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.ExtAuthz;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.HttpService;
import io.envoyproxy.envoy.type.matcher.v3.ListStringMatcher;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.spillway.edge.config.Route.StringMatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The {@code envoy.filters.http.ext_authz} config ({@code ExtAuthz}) → {@link ExtAuthzConfig}: an
 * HTTP authorization service or a gRPC one through {@code envoy_grpc} (a cluster of the edge), with
 * or without the request body. {@code google_grpc}, retries, and the fields that act on metadata,
 * runtime, the route cache or TLS details are rejected with their path, like every unsupported field.
 */
final class ExtAuthzTranslator {

  private static final SupportedFields EXT_AUTHZ = SupportedFields.of(ExtAuthz.getDescriptor(),
          "http_service", "transport_api_version", "failure_mode_allow", "failure_mode_allow_header_add",
          "status_on_error", "include_peer_certificate", "stat_prefix", "allowed_headers", "grpc_service",
          "with_request_body");
  private static final SupportedFields BUFFER_SETTINGS = SupportedFields.of(BufferSettings.getDescriptor(),
      "max_request_bytes", "allow_partial_message", "pack_as_bytes");
  private static final SupportedFields HTTP_SERVICE = SupportedFields.of(HttpService.getDescriptor(),
      "server_uri", "path_prefix", "authorization_request", "authorization_response");
  private static final SupportedFields HTTP_URI = SupportedFields.of(HttpUri.getDescriptor(),
      "uri", "cluster", "timeout");
  private static final SupportedFields AUTHORIZATION_REQUEST = SupportedFields.of(
      AuthorizationRequest.getDescriptor(), "allowed_headers", "headers_to_add");
  private static final SupportedFields AUTHORIZATION_RESPONSE = SupportedFields.of(
      AuthorizationResponse.getDescriptor(), "allowed_upstream_headers", "allowed_client_headers",
      "allowed_client_headers_on_success");
  private static final SupportedFields LIST_STRING_MATCHER = SupportedFields.of(ListStringMatcher.getDescriptor(),
      "patterns");
  private static final SupportedFields HEADER_VALUE = SupportedFields.of(HeaderValue.getDescriptor(), "key", "value");
  private static final SupportedFields HTTP_STATUS = SupportedFields.of(HttpStatus.getDescriptor(), "code");

  private ExtAuthzTranslator() {}

  /**
   * @param knownCluster whether a cluster of that name is configured
   * @param path the path of the filter's {@code typed_config}
   */
  @SuppressWarnings("deprecation") // authorization_request.allowed_headers: deprecated, still read by Envoy
  static ExtAuthzConfig translate(ExtAuthz e, String filterName, Predicate<String> knownCluster, FieldPath path)
      throws ConfigException {
    EXT_AUTHZ.check(e, path);
    if (!e.hasHttpService() && !e.hasGrpcService()) {
      throw new ConfigException(path.field("http_service"), "http_service or grpc_service is required");
    }
    if (e.getTransportApiVersion() != ApiVersion.AUTO && e.getTransportApiVersion() != ApiVersion.V3) {
      throw new ConfigException(path.field("transport_api_version"),
          e.getTransportApiVersion() + " is not supported (only V3)");
    }
    if (e.getIncludePeerCertificate()) {
      throw new ConfigException(path.field("include_peer_certificate"), "include_peer_certificate: true is not supported");
    }
    int statusOnError = ExtAuthzConfig.DEFAULT_STATUS_ON_ERROR;
    if (e.hasStatusOnError()) {
      FieldPath statusPath = path.field("status_on_error");
      HttpStatus status = e.getStatusOnError();
      HTTP_STATUS.check(status, statusPath);
      int code = status.getCodeValue();
      if (code < 200 || code > 599) {
        throw new ConfigException(statusPath.field("code"), "must be a status from 200 to 599");
      }
      statusOnError = code;
    }
    Optional<ExtAuthzConfig.RequestBody> requestBody = Optional.empty();
    if (e.hasWithRequestBody()) {
      requestBody = Optional.of(requestBody(e.getWithRequestBody(), path.field("with_request_body")));
    }
    if (e.hasGrpcService()) {
      return grpc(e, filterName, knownCluster, path, statusOnError, requestBody);
    }

    FieldPath servicePath = path.field("http_service");
    HttpService service = e.getHttpService();
    HTTP_SERVICE.check(service, servicePath);
    FieldPath uriPath = servicePath.field("server_uri");
    if (!service.hasServerUri()) {
      throw new ConfigException(uriPath, "server_uri is required");
    }
    HttpUri uri = service.getServerUri();
    HTTP_URI.check(uri, uriPath);
    if (uri.getUri().isEmpty()) {
      throw new ConfigException(uriPath.field("uri"), "uri is required");
    }
    if (uri.getCluster().isEmpty()) {
      throw new ConfigException(uriPath.field("cluster"), "cluster is required");
    }
    if (!knownCluster.test(uri.getCluster())) {
      throw new ConfigException(uriPath.field("cluster"),
          "unknown cluster \"" + uri.getCluster() + "\" (no cluster of that name is configured)");
    }
    if (!uri.hasTimeout()) {
      // Envoy's HttpUri validation requires it (the 200 ms "default" of the docs never applies).
      throw new ConfigException(uriPath.field("timeout"), "timeout is required");
    }
    Duration timeout = ProtoValues.duration(true, uri.getTimeout(), uriPath.field("timeout"), Duration.ZERO);
    String pathPrefix = service.getPathPrefix();
    if (!pathPrefix.isEmpty() && pathPrefix.charAt(0) != '/') {
      throw new ConfigException(servicePath.field("path_prefix"), "must start with '/'");
    }

    List<StringMatch> allowedHeaders = List.of();
    List<ExtAuthzConfig.Header> headersToAdd = new ArrayList<>();
    if (service.hasAuthorizationRequest()) {
      FieldPath requestPath = servicePath.field("authorization_request");
      AuthorizationRequest request = service.getAuthorizationRequest();
      AUTHORIZATION_REQUEST.check(request, requestPath);
      if (request.hasAllowedHeaders()) {
        if (e.hasAllowedHeaders()) {
          throw new ConfigException(requestPath.field("allowed_headers"),
              "set allowed_headers or the deprecated http_service.authorization_request.allowed_headers, not both");
        }
        allowedHeaders = matchers(request.getAllowedHeaders(), requestPath.field("allowed_headers"));
      }
      FieldPath addPath = requestPath.field("headers_to_add");
      for (int i = 0; i < request.getHeadersToAddCount(); i++) {
        FieldPath headerPath = addPath.index(i);
        HeaderValue h = request.getHeadersToAdd(i);
        HEADER_VALUE.check(h, headerPath);
        String name = HeaderMutationTranslator.headerName(h.getKey(), headerPath.field("key"));
        if (name.startsWith(":") || name.equals("host") || name.equals("content-length")) {
          throw new ConfigException(headerPath.field("key"), "\"" + h.getKey() + "\" may not be set"
              + " (pseudo-headers, host and content-length are the check's own)");
        }
        headersToAdd.add(new ExtAuthzConfig.Header(name,
            HeaderMutationTranslator.literalValue(h.getValue(), headerPath.field("value"))));
      }
    }
    if (e.hasAllowedHeaders()) {
      allowedHeaders = matchers(e.getAllowedHeaders(), path.field("allowed_headers"));
    }

    List<StringMatch> upstream = List.of();
    List<StringMatch> client = List.of();
    List<StringMatch> clientOnSuccess = List.of();
    if (service.hasAuthorizationResponse()) {
      FieldPath responsePath = servicePath.field("authorization_response");
      AuthorizationResponse response = service.getAuthorizationResponse();
      AUTHORIZATION_RESPONSE.check(response, responsePath);
      upstream = matchers(response.getAllowedUpstreamHeaders(), responsePath.field("allowed_upstream_headers"));
      client = matchers(response.getAllowedClientHeaders(), responsePath.field("allowed_client_headers"));
      clientOnSuccess = matchers(response.getAllowedClientHeadersOnSuccess(),
          responsePath.field("allowed_client_headers_on_success"));
    }
    return new ExtAuthzConfig(uri.getCluster(), uri.getUri(), timeout, pathPrefix, allowedHeaders, headersToAdd,
        upstream, client, clientOnSuccess, e.getFailureModeAllow(), e.getFailureModeAllowHeaderAdd(), statusOnError,
        e.getStatPrefix(), filterName, ExtAuthzConfig.Service.HTTP, requestBody);
  }

  /** {@code grpc_service}: {@code envoy_grpc} with a configured cluster, its timeout and initial metadata. */
  private static ExtAuthzConfig grpc(ExtAuthz e, String filterName, Predicate<String> knownCluster, FieldPath path,
      int statusOnError, Optional<ExtAuthzConfig.RequestBody> requestBody) throws ConfigException {
    GrpcServiceConfig service = GrpcServiceTranslator.envoyGrpc(e.getGrpcService(), knownCluster,
        path.field("grpc_service"));
    Duration timeout = service.timeout().orElse(ExtAuthzConfig.DEFAULT_GRPC_TIMEOUT);
    List<ExtAuthzConfig.Header> metadata = new ArrayList<>();
    for (GrpcServiceConfig.Metadata m : service.initialMetadata()) {
      metadata.add(new ExtAuthzConfig.Header(m.name(), m.value()));
    }
    String authority = service.authority().equals(service.cluster()) ? "" : service.authority();
    List<StringMatch> allowedHeaders = e.hasAllowedHeaders()
        ? matchers(e.getAllowedHeaders(), path.field("allowed_headers")) : List.of();
    return new ExtAuthzConfig(service.cluster(), authority, timeout, "", allowedHeaders, metadata, List.of(),
        List.of(), List.of(), e.getFailureModeAllow(), e.getFailureModeAllowHeaderAdd(), statusOnError,
        e.getStatPrefix(), filterName, ExtAuthzConfig.Service.GRPC, requestBody);
  }

  private static ExtAuthzConfig.RequestBody requestBody(BufferSettings b, FieldPath path) throws ConfigException {
    BUFFER_SETTINGS.check(b, path);
    if (b.getMaxRequestBytes() == 0) {
      throw new ConfigException(path.field("max_request_bytes"), "must be greater than 0");
    }
    int max = ProtoValues.uint32(b.getMaxRequestBytes(), path.field("max_request_bytes"), 1);
    return new ExtAuthzConfig.RequestBody(max, b.getAllowPartialMessage(), b.getPackAsBytes());
  }

  private static List<StringMatch> matchers(ListStringMatcher list, FieldPath path) throws ConfigException {
    LIST_STRING_MATCHER.check(list, path);
    List<StringMatch> out = new ArrayList<>(list.getPatternsCount());
    for (int i = 0; i < list.getPatternsCount(); i++) {
      out.add(MatchTranslator.string(list.getPatterns(i), path.field("patterns").index(i)));
    }
    return out;
  }
}
