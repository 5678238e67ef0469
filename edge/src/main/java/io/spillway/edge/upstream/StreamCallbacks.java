package io.spillway.edge.upstream;

/** How a pool answers a request for a stream. Called on the worker's loop, exactly once. */
public interface StreamCallbacks {

  void onStreamReady(UpstreamStream stream);

  void onStreamFailure(PoolFailure failure, String detail);

  /** Why no stream could be had. */
  enum PoolFailure {
    /** The TCP connection could not be made (refused, unreachable). Response flag UF. */
    CONNECT_FAILURE,
    /** The connect timeout passed. Response flag UF. */
    CONNECT_TIMEOUT,
    /** Pending-request circuit breaker full. Response flag UO. */
    OVERFLOW,
    /** The connection closed before the stream could start. Response flag UF. */
    CONNECTION_TERMINATED
  }
}
