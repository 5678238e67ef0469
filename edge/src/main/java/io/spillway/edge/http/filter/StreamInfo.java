package io.spillway.edge.http.filter;

import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Host;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What is known about one stream as it goes (Envoy's {@code StreamInfo}): when it started, the
 * response code sent, the response flags, the downstream peer and protocol, the upstream host, the
 * stream's timestamps and byte counts for the access log, the dynamic metadata filters write.
 * Written by the stream and its filters on
 * the stream's worker loop; read by them and, at the end, by whoever records the stream.
 */
public final class StreamInfo {
  /** The {@link #downstreamTls()} of a connection without TLS. */
  public static final Supplier<DownstreamTls> NO_TLS = () -> null;

  private final long startNanos;
  private final long startEpochNanos;
  private String downstreamAddress;
  private final boolean http2;
  private int responseCode;
  private int responseFlags;
  private Host upstreamHost;
  private RouteEntry route;
  private String responseCodeDetails;
  private String upgrade;
  private Runnable onTunnelOpen;
  private boolean healthCheck;
  private String authenticatedSubject;
  private InetSocketAddress downstreamRemote;
  private InetSocketAddress downstreamDirectRemote;
  private final String downstreamDirectAddress;
  private InetSocketAddress downstreamLocal;
  private Supplier<DownstreamTls> downstreamTls = NO_TLS;
  private long lastDownstreamRxNanos;
  private long firstUpstreamRxNanos;
  private long endNanos;
  private long bytesReceived;
  private long bytesSent;
  /** Null until a filter writes some: a stream whose filters never do allocates none. */
  private DynamicMetadata dynamicMetadata;

  /** Started now: {@code startNanos} is System.nanoTime, the wall clock is read once. */
  public StreamInfo(long startNanos, String downstreamAddress, boolean http2) {
    this(startNanos, epochNanos(Instant.now()), downstreamAddress, http2);
  }

  /** Started at {@code startNanos} (System.nanoTime) and {@code startEpochNanos} (wall clock, ns since 1970). */
  public StreamInfo(long startNanos, long startEpochNanos, String downstreamAddress, boolean http2) {
    this.startNanos = startNanos;
    this.startEpochNanos = startEpochNanos;
    this.downstreamAddress = downstreamAddress;
    this.downstreamDirectAddress = downstreamAddress;
    this.http2 = http2;
  }

  private static long epochNanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  /** System.nanoTime when the request's headers arrived. */
  public long startNanos() {
    return startNanos;
  }

  /** Wall-clock time when the request's headers arrived, in nanoseconds since the epoch. */
  public long startEpochNanos() {
    return startEpochNanos;
  }

  /**
   * The client's IP address: the connection's peer, or the address the connection manager trusts
   * from {@code x-forwarded-for} (Envoy's downstream remote address).
   */
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

  /** The route the request matched, or null. */
  public RouteEntry route() {
    return route;
  }

  public void setRoute(RouteEntry route) {
    this.route = route;
  }

  /** Whether the health check filter found this request to be a health check (access logs' {@code not_health_check_filter}). */
  public boolean isHealthCheck() {
    return healthCheck;
  }

  public void setHealthCheck() {
    this.healthCheck = true;
  }

  /**
   * The {@code sub} claim of the first JWT jwt_authn verified for this request; null when none was
   * verified or it had no string {@code sub}. The policy's {@code subject}-keyed rate limits read it.
   */
  public String authenticatedSubject() {
    return authenticatedSubject;
  }

  /** Records the verified subject; the first one set stays. */
  public void setAuthenticatedSubject(String subject) {
    if (authenticatedSubject == null) {
      authenticatedSubject = subject;
    }
  }

  /**
   * Why the response code is what it is (Envoy's {@code %RESPONSE_CODE_DETAILS%}): {@code via_upstream}
   * for an upstream's response, the local reply's reason (spaces as underscores) for a local one;
   * null until known. The first value set stays.
   */
  /**
   * The protocol an HTTP/1.1 request asks to switch to, once the connection manager has found the
   * upgrade enabled for its route; null for every other request. The router forwards it as an upgrade.
   */
  public String upgrade() {
    return upgrade;
  }

  public void setUpgrade(String upgrade) {
    this.upgrade = upgrade;
  }

  /**
   * Runs {@code action} once when this stream becomes a tunnel (the 101, or the 2xx to a CONNECT,
   * went out); a later call replaces an earlier one. For what holds a per-request resource that a
   * tunnel, which may stay open for hours, must not keep: the admission permit.
   */
  public void onTunnelOpen(Runnable action) {
    this.onTunnelOpen = action;
  }

  /** The connection manager: the stream is a tunnel from now on. */
  public void tunnelOpened() {
    Runnable action = onTunnelOpen;
    if (action != null) {
      onTunnelOpen = null;
      action.run();
    }
  }

  public String responseCodeDetails() {
    return responseCodeDetails;
  }

  public void setResponseCodeDetails(String details) {
    if (responseCodeDetails == null && details != null && !details.isEmpty()) {
      responseCodeDetails = details.indexOf(' ') < 0 ? details : details.replace(' ', '_');
    }
  }

  /**
   * The client's address and port, or null when the connection did not say; an address trusted
   * from {@code x-forwarded-for} has port 0, as in Envoy.
   */
  public InetSocketAddress downstreamRemote() {
    return downstreamRemote;
  }

  /** The connection's peer IP address, whatever {@code x-forwarded-for} says. */
  public String downstreamDirectAddress() {
    return downstreamDirectAddress;
  }

  /** The connection's peer address and port, or null when the connection did not say. */
  public InetSocketAddress downstreamDirectRemote() {
    return downstreamDirectRemote;
  }

  /** The client is {@code ip} (an IP literal), by the connection manager's x-forwarded-for rules. */
  public void setTrustedClient(String ip) {
    byte[] bytes = io.netty.util.NetUtil.createByteArrayFromIpAddressString(ip);
    if (bytes == null) {
      return;
    }
    try {
      downstreamRemote = new InetSocketAddress(java.net.InetAddress.getByAddress(bytes), 0);
      downstreamAddress = ip;
    } catch (java.net.UnknownHostException e) {
      // not reached: the bytes are an IPv4 or IPv6 address
    }
  }

  /** The address and port the client connected to, or null when the connection did not say. */
  public InetSocketAddress downstreamLocal() {
    return downstreamLocal;
  }

  public void setDownstreamAddresses(InetSocketAddress remote, InetSocketAddress local) {
    this.downstreamRemote = remote;
    this.downstreamDirectRemote = remote;
    this.downstreamLocal = local;
  }

  /**
   * What the TLS connection says about the client (its certificate's names), or null when it is
   * not TLS. The connection reads it on the first call, once.
   */
  public DownstreamTls downstreamTls() {
    return downstreamTls.get();
  }

  /** Where {@link #downstreamTls()} comes from: the connection's cached reading, or {@link #NO_TLS}. */
  public void setDownstreamTls(Supplier<DownstreamTls> tls) {
    this.downstreamTls = Objects.requireNonNull(tls, "tls");
  }

  /** System.nanoTime of the request's last byte, 0 until the request is complete. */
  public long lastDownstreamRxNanos() {
    return lastDownstreamRxNanos;
  }

  public void markLastDownstreamRx(long nanos) {
    if (lastDownstreamRxNanos == 0) {
      lastDownstreamRxNanos = nanos;
    }
  }

  /** System.nanoTime when the upstream's response head arrived, 0 when none did. */
  public long firstUpstreamRxNanos() {
    return firstUpstreamRxNanos;
  }

  public void markFirstUpstreamRx(long nanos) {
    if (firstUpstreamRxNanos == 0) {
      firstUpstreamRxNanos = nanos;
    }
  }

  /** System.nanoTime when the stream ended, 0 while it runs. */
  public long endNanos() {
    return endNanos;
  }

  public void markEnd(long nanos) {
    if (endNanos == 0) {
      endNanos = nanos;
    }
  }

  /** Request body bytes received from the client. */
  public long bytesReceived() {
    return bytesReceived;
  }

  public void addBytesReceived(long n) {
    bytesReceived += n;
  }

  /** Response body bytes sent to the client. */
  public long bytesSent() {
    return bytesSent;
  }

  public void addBytesSent(long n) {
    bytesSent += n;
  }

  /**
   * The dynamic metadata filters wrote for this stream (Envoy's {@code dynamicMetadata()}), or null
   * while none has been written.
   */
  public DynamicMetadata dynamicMetadata() {
    return dynamicMetadata;
  }

  /** Sets one key of the dynamic metadata's {@code namespace} (Envoy's {@code setDynamicMetadata}, key by key). */
  public void setDynamicMetadata(String namespace, String key, MetadataValue value) {
    if (dynamicMetadata == null) {
      dynamicMetadata = new DynamicMetadata();
    }
    dynamicMetadata.put(namespace, key, value);
  }
}
