package io.spillway.testkit;

import java.util.List;
import java.util.Objects;

/**
 * One request an {@link OriginServer} received. It is recorded as soon as its body is complete (its
 * end of stream, or the last byte its {@code content-length} declared) and before the answer is
 * complete, so a test holding a whole response can already see it.
 *
 * @param protocol     {@code "HTTP/1.1"}, {@code "HTTP/1.0"} or {@code "HTTP/2"}
 * @param method       the request method
 * @param path         the request target as received, query string included
 * @param authority    the {@code :authority} pseudo-header (HTTP/2) or the {@code host} header
 *                     (HTTP/1); empty when absent
 * @param headers      every header field in arrival order; for HTTP/2 the pseudo-headers too
 * @param bodyLength   the number of body bytes received
 * @param body         the first {@link #BODY_CAPTURE_LIMIT} bytes of the body, decoded as UTF-8
 * @param connectionId which downstream connection of the origin carried the request, numbered
 *                     from 1 in the order the connections were accepted (two requests with the same
 *                     id were sent over one reused connection)
 */
public record RecordedRequest(
        String protocol,
        String method,
        String path,
        String authority,
        List<HeaderField> headers,
        long bodyLength,
        String body,
        int connectionId) {

    /** How many leading body bytes are kept in {@link #body()}; {@link #bodyLength()} counts all. */
    public static final int BODY_CAPTURE_LIMIT = 64 * 1024;

    public RecordedRequest {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(authority, "authority");
        headers = List.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }

    /** The first value of the named header (case-insensitive), or {@code null} when absent. */
    public String header(String name) {
        for (HeaderField field : headers) {
            if (field.is(name)) {
                return field.value();
            }
        }
        return null;
    }

    /** Every value of the named header (case-insensitive), in arrival order. */
    public List<String> headers(String name) {
        return headers.stream().filter(f -> f.is(name)).map(HeaderField::value).toList();
    }

    /** Whether the request arrived over HTTP/2. */
    public boolean isHttp2() {
        return "HTTP/2".equals(protocol);
    }
}
