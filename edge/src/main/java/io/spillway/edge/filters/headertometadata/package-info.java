/** envoy.filters.http.header_to_metadata: request and response headers (or cookies) into the stream's dynamic metadata. */
package io.spillway.edge.filters.headertometadata;
