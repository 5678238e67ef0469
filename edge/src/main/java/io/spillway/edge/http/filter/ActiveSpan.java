package io.spillway.edge.http.filter;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * The request's tracing span as filters see it (Envoy's {@code callbacks->activeSpan()}): what the
 * router needs to carry the trace upstream and to time each try. {@link #NONE} when the connection
 * manager does not trace. Used only on the stream's worker loop.
 */
public interface ActiveSpan {

  /** No tracing: nothing is injected, no span is made. */
  ActiveSpan NONE = new ActiveSpan() {
    @Override
    public void injectContext(HttpHeaders headers) {}

    @Override
    public ActiveSpan spawnUpstream(String cluster) {
      return this;
    }

    @Override
    public void finishUpstream(String upstreamAddress, String protocol, int status, int responseFlags) {}
  };

  /** Writes this span's context into the headers of a request going upstream. */
  void injectContext(HttpHeaders headers);

  /**
   * The span of one upstream try, started now: a CLIENT child when the connection manager spawns
   * upstream spans ({@code spawn_upstream_span}), else this span, whose context the try carries.
   */
  ActiveSpan spawnUpstream(String cluster);

  /**
   * Ends the span of an upstream try (nothing for the downstream span or {@link #NONE}).
   *
   * @param upstreamAddress the host tried as {@code ip:port}, or null when none was reached
   * @param protocol the try's protocol ({@code HTTP/1.1}, {@code HTTP/2})
   * @param status the upstream's response status, 0 when none came
   * @param responseFlags the stream's {@link ResponseFlag} bits so far
   */
  void finishUpstream(String upstreamAddress, String protocol, int status, int responseFlags);
}
