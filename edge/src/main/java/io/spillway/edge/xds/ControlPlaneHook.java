package io.spillway.edge.xds;

import io.grpc.Channel;
import io.grpc.Metadata;

/**
 * Told by the {@link AdsClient} of its streams, so a companion stream (the {@link EdgeReporter})
 * can use the same channel and credentials and follow the server the client is connected to.
 * Called on the ADS client's thread: return at once, never block.
 */
public interface ControlPlaneHook {

  /**
   * The first response of a stream arrived.
   *
   * @param channel the stream's gRPC channel (to the server that answered)
   * @param headers the initial metadata the stream was opened with (the edge's credential)
   * @param identifier that response's {@code control_plane.identifier}, empty when it had none
   */
  void answered(Channel channel, Metadata headers, String identifier);

  /** The answered stream closed; the client is reconnecting (or closing). */
  void lost();

  /** The ADS client is closing; so does the hook. */
  void close();
}
