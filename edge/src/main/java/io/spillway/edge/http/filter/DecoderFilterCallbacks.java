package io.spillway.edge.http.filter;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * What the stream offers a decoder filter (Envoy's {@code StreamDecoderFilterCallbacks}): resuming
 * iteration, the buffer limit, back-pressure towards the client, and — for the terminal filter —
 * the way to hand a response to the encoder chain.
 */
public interface DecoderFilterCallbacks extends StreamFilterCallbacks {

  /** Resumes iteration after this filter stopped it: the next filters get what was held. */
  void continueDecoding();

  /**
   * Passes on a request body part this filter made (a compressor's output), taking ownership of
   * it: from {@code decodeData}, in place of the part the filter took (it answers
   * {@link FilterDataStatus#STOP_ITERATION_NO_BUFFER} and releases that part); from
   * {@code decodeTrailers}, ahead of the trailers (Envoy's {@code addDecodedData}). Only valid
   * inside those two callbacks.
   */
  void injectDecodedData(ByteBuf data);

  /** How many request bytes the chain buffers for a stopped filter before it acts (413 or pause). */
  long decoderBufferLimit();

  /** Raises or lowers {@link #decoderBufferLimit()} for this stream (the buffer filter's max_request_bytes). */
  void setDecoderBufferLimit(long bytes);

  /** A response part from the terminal filter, handed to the encoder filters and then the client. */
  void encodeHeaders(ResponseHeaders headers, boolean endStream);

  void encodeData(ByteBuf data, boolean endStream);

  void encodeTrailers(HttpHeaders trailers);

  /** Writes out what the encoder chain passed on without a flush (end of an upstream read burst). */
  void flushResponse();

  /**
   * Stops (true) or resumes (false) reading the request from the client. Counted: reading resumes
   * once every stop has been matched by a resume.
   */
  void readDisable(boolean disable);

  /** Whether the client can take more response bytes now. */
  boolean downstreamWritable();

  /** Tells {@code callbacks} each time the client's writability changes (response back-pressure). */
  void setDownstreamWatermarkCallbacks(DownstreamWatermarkCallbacks callbacks);

  /**
   * Calls {@code onExpiry} once the response deadline passes (System.nanoTime), unless the stream
   * ends first; the route timeout. Shares the stream's one timer with the idle timeout.
   */
  void setResponseDeadline(long deadlineNanos, Runnable onExpiry);

  /**
   * Limits the stream to {@code nanos} from its start (a route's {@code max_stream_duration}): when
   * it passes, the connection manager answers 408 {@code downstream duration timeout} (DT), or
   * resets the stream once the response has started. Takes the stream's one response deadline, so
   * a filter sets this or a route timeout, not both.
   */
  void setMaxStreamDuration(long nanos);

  /** Marks the stream's activity now (the idle timeout counts from the last activity). */
  void touch();

  /**
   * Envoy's {@code clearRouteCache}: a filter changed the request's headers, so the route is
   * matched again, in the route table the stream started with; {@link #route()} (for this and
   * every later filter) is the new match. The filters of the stream stay those of its first route.
   */
  void clearRouteCache();
}
