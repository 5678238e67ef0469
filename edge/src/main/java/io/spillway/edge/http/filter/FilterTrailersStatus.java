package io.spillway.edge.http.filter;

/** What a filter's trailers callback asks of the chain (Envoy's {@code FilterTrailersStatus}). */
public enum FilterTrailersStatus {
  /** Pass the trailers on. */
  CONTINUE,
  /** Hold the trailers (and end of stream) here until the filter continues iteration. */
  STOP_ITERATION
}
