package io.spillway.edge.http.filter;

import io.spillway.edge.upstream.Host;

/**
 * What is known about one stream as it goes (Envoy's {@code StreamInfo}): when it started, the
 * response code sent, the response flags, the downstream peer and protocol, the upstream host.
 * Written by the stream and its filters on the stream's worker loop; read by them and, at the end,
 * by whoever records the stream.
 */
public final class StreamInfo {
  private final long startNanos;
  private final String downstreamAddress;
  private final boolean http2;
  private int responseCode;
  private int responseFlags;
  private Host upstreamHost;

  public StreamInfo(long startNanos, String downstreamAddress, boolean http2) {
    this.startNanos = startNanos;
    this.downstreamAddress = downstreamAddress;
    this.http2 = http2;
  }

  /** System.nanoTime when the request's headers arrived. */
  public long startNanos() {
    return startNanos;
  }

  /** The client's IP address. */
  public String downstreamAddress() {
    return downstreamAddress;
  }

  /** Whether the client speaks HTTP/2 on this stream. */
  public boolean isHttp2() {
    return http2;
  }

  /** The status sent to the client, 0 until response headers went out. */
  public int responseCode() {
    return responseCode;
  }

  public void setResponseCode(int code) {
    responseCode = code;
  }

  /** The response flags as {@link ResponseFlag#bit()}s. */
  public int responseFlags() {
    return responseFlags;
  }

  public void setResponseFlag(ResponseFlag flag) {
    responseFlags |= flag.bit();
  }

  public boolean hasResponseFlag(ResponseFlag flag) {
    return (responseFlags & flag.bit()) != 0;
  }

  /** The upstream host of the last try, or null when none was tried. */
  public Host upstreamHost() {
    return upstreamHost;
  }

  public void setUpstreamHost(Host host) {
    upstreamHost = host;
  }
}
