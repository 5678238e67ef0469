package io.spillway.edge.http.filter;

/**
 * What a filter's data callback asks of the chain (Envoy's {@code FilterDataStatus}). Who owns the
 * buffer afterwards follows from the status: the chain, except for {@link #STOP_ITERATION_NO_BUFFER}.
 */
public enum FilterDataStatus {
  /**
   * Pass the data on. If this filter was holding the headers, iteration resumes from the next
   * filter with the headers, whatever the chain buffered, and this data.
   */
  CONTINUE,
  /**
   * Keep the data in the chain's buffer and stop here. Past the stream's buffer limit the request
   * gets 413 (the response: 500), as in Envoy.
   */
  STOP_ITERATION_AND_BUFFER,
  /**
   * Keep the data in the chain's buffer and stop here; past the buffer limit the downstream (or
   * upstream) stops reading instead of failing the stream, and reads again once it is drained.
   */
  STOP_ITERATION_AND_WATERMARK,
  /** The filter took the data (it releases or keeps it); nothing is buffered. */
  STOP_ITERATION_NO_BUFFER
}
