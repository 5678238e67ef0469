/** Envoy's compressor HTTP filter: response bodies compressed as they stream, gzip, zstd or brotli. */
package io.spillway.edge.filters.compressor;
