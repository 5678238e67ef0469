package io.spillway.edge.http.filter;

/** A filter on both directions of a stream (Envoy's {@code StreamFilter}). */
public interface StreamFilter extends DecoderFilter, EncoderFilter {}
