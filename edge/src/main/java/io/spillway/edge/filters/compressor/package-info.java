/** Envoy's compressor HTTP filter: response bodies compressed as they stream, gzip or zstd. */
package io.spillway.edge.filters.compressor;
