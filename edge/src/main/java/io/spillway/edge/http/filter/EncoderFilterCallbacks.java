package io.spillway.edge.http.filter;

/** What the stream offers an encoder filter (Envoy's {@code StreamEncoderFilterCallbacks}). */
public interface EncoderFilterCallbacks extends StreamFilterCallbacks {

  /** Resumes the response's iteration after this filter stopped it. */
  void continueEncoding();
}
