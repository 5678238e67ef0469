package io.spillway.edge.http.filter;

/** Where a factory puts a stream's filter instances; decoder order is the order of the calls. */
public interface FilterChainBuilder {

  void addDecoderFilter(DecoderFilter filter);

  void addEncoderFilter(EncoderFilter filter);

  /** Adds the filter to both directions. */
  default void addStreamFilter(StreamFilter filter) {
    addDecoderFilter(filter);
    addEncoderFilter(filter);
  }
}
