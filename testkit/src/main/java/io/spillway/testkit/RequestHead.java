package io.spillway.testkit;

import java.util.List;

/** The part of a {@link RecordedRequest} known once the request's headers have arrived. */
record RequestHead(
        String protocol,
        String method,
        String path,
        String authority,
        List<HeaderField> headers,
        int connectionId) {

    String header(String name) {
        for (HeaderField field : headers) {
            if (field.is(name)) {
                return field.value();
            }
        }
        return null;
    }

    RecordedRequest complete(long bodyLength, String body) {
        return new RecordedRequest(protocol, method, path, authority, headers, bodyLength, body, connectionId);
    }
}
