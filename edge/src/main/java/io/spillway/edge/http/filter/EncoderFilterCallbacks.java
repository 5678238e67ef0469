package io.spillway.edge.http.filter;

/** What the stream offers an encoder filter (Envoy's {@code StreamEncoderFilterCallbacks}). */
public interface EncoderFilterCallbacks extends StreamFilterCallbacks {

  /** Resumes the response's iteration after this filter stopped it. */
  void continueEncoding();

  /**
   * Passes on a body part this filter made (a compressor's output), taking ownership of it. From
   * {@code encodeData}, it replaces the part the filter took (the filter answers
   * {@link FilterDataStatus#STOP_ITERATION_NO_BUFFER} and releases that part); from
   * {@code encodeTrailers}, it goes on ahead of the trailers (Envoy's {@code addEncodedData}).
   * Only valid inside those two callbacks.
   */
  void injectEncodedData(io.netty.buffer.ByteBuf data);
}
