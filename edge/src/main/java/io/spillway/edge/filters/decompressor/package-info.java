/** envoy.filters.http.decompressor: decodes gzip, brotli and zstd request and response bodies as they stream, within an inflate-ratio bound. */
package io.spillway.edge.filters.decompressor;
