package io.spillway.edge.http.filter;

/** What a filter's headers callback asks of the chain (Envoy's {@code FilterHeadersStatus}). */
public enum FilterHeadersStatus {
  /** Pass the headers to the next filter. */
  CONTINUE,
  /**
   * Hold the headers here: nothing reaches later filters until this filter calls
   * {@code continueDecoding()} / {@code continueEncoding()}. Body and trailers that arrive
   * meanwhile are still given to this filter.
   */
  STOP_ITERATION
}
