package io.spillway.edge.authz;

import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What one check asks about: the part of Envoy's {@code AttributeContext} the edge fills
 * ({@code check_request_utils.cc}). Built on the request's worker, read by the client.
 *
 * @param source the client's address (the downstream connection's remote address), or null
 * @param sourceService {@code x-envoy-downstream-service-cluster} of the request, or empty
 * @param destination the edge's address the client connected to, or null
 * @param startEpochNanos when the request started, wall clock; 0 when unknown
 * @param id the stream's id (decimal)
 * @param method the request's method
 * @param path the request's path with its query
 * @param host the request's authority
 * @param scheme the request's scheme
 * @param protocol {@code HTTP/1.1} or {@code HTTP/2}
 * @param size the request body bytes received so far
 * @param headers the request's headers sent with the check: lower-case names, repeated headers
 *     joined with {@code ,}, insertion order
 * @param body the buffered body (at most {@code max_request_bytes}), or null without {@code with_request_body}
 * @param packAsBytes the body goes in {@code raw_body} instead of {@code body}
 * @param contextExtensions {@code context_extensions} of the check
 */
public record AuthzRequest(
    InetSocketAddress source,
    String sourceService,
    InetSocketAddress destination,
    long startEpochNanos,
    String id,
    String method,
    String path,
    String host,
    String scheme,
    String protocol,
    long size,
    Map<String, String> headers,
    byte[] body,
    boolean packAsBytes,
    Map<String, String> contextExtensions) {}
