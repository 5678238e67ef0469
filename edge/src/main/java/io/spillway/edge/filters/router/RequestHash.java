package io.spillway.edge.filters.router;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.NetUtil;
import io.spillway.edge.config.Route.HashPolicy;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.lb.XxHash64;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A request's hash under its route's {@code hash_policy} (Envoy's {@code HashPolicyImpl}): every
 * entry that yields a value folds it in as {@code hash = rotl(hash, 1) ^ xxHash64(value)}, and a
 * terminal entry stops the walk once there is a hash. Computed once per request, on the worker,
 * only for RING_HASH and MAGLEV clusters.
 */
final class RequestHash {
  /** Where a cookie entry with a ttl puts the cookie it generates for a request that has none. */
  interface CookieSink {
    /** Adds {@code Set-Cookie} for the cookie to the response and returns the hash of its value. */
    long setCookie(String name, String value, String path, Duration ttl);
  }

  private final boolean present;
  private final long value;

  private RequestHash(boolean present, long value) {
    this.present = present;
    this.value = value;
  }

  static final RequestHash NONE = new RequestHash(false, 0);

  boolean present() {
    return present;
  }

  long value() {
    return value;
  }

  static RequestHash of(List<HashPolicy> policies, RequestHeaders request, StreamInfo info, CookieSink cookies) {
    boolean have = false;
    long hash = 0;
    for (HashPolicy p : policies) {
      boolean got = true;
      long next = 0;
      switch (p) {
        case HashPolicy.Header h -> {
          byte[] bytes = header(request, h.name());
          if (bytes == null) {
            got = false;
          } else {
            next = XxHash64.hash(bytes, 0);
          }
        }
        case HashPolicy.Cookie c -> {
          String v = cookie(request, c.name());
          if (v != null) {
            next = XxHash64.hash(v);
          } else if (c.ttl().isPresent()) {
            next = cookies.setCookie(c.name(), generatedCookie(info), c.path(), c.ttl().get());
          } else {
            got = false;
          }
        }
        case HashPolicy.SourceIp s -> {
          String ip = sourceIp(info);
          if (ip == null) {
            got = false;
          } else {
            next = XxHash64.hash(ip);
          }
        }
        case HashPolicy.QueryParameter q -> {
          byte[] v = queryParameter(request.query(), q.name());
          if (v == null) {
            got = false;
          } else {
            next = XxHash64.hash(v, 0);
          }
        }
      }
      if (got) {
        hash = (have ? Long.rotateLeft(hash, 1) : 0) ^ next;
        have = true;
      }
      if (p.terminal() && have) {
        break;
      }
    }
    return have ? new RequestHash(true, hash) : NONE;
  }

  /** The header's values, sorted and concatenated (Envoy hashes them so, whatever their order); null when absent. */
  static byte[] header(RequestHeaders request, String name) {
    List<String> values;
    if (name.charAt(0) == ':' || name.equals("host")) {
      String v = request.header(name);
      values = v == null ? List.of() : List.of(v);
    } else {
      values = request.headers().getAll(name);
    }
    if (values.isEmpty()) {
      return null;
    }
    if (values.size() == 1) {
      return values.get(0).getBytes(StandardCharsets.ISO_8859_1);
    }
    List<String> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return String.join("", sorted).getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * The first cookie of that name over every Cookie header, its surrounding quotes dropped; null
   * when absent or empty (Envoy treats an empty value as no cookie).
   */
  static String cookie(RequestHeaders request, String name) {
    return io.spillway.edge.http.message.Cookies.value(request.headers().getAll(HttpHeaderNames.COOKIE), name);
  }

  /**
   * Envoy's generated cookie value: the hex of xxHash64 of the downstream connection's remote and
   * local addresses, so that requests racing on one connection get the same cookie.
   */
  static String generatedCookie(StreamInfo info) {
    String remote = info.downstreamRemote() == null ? info.downstreamAddress()
        : Host.envoyAddress(info.downstreamRemote());
    String local = info.downstreamLocal() == null ? "" : Host.envoyAddress(info.downstreamLocal());
    return String.format("%016x", XxHash64.hash(remote + local));
  }

  /** The downstream peer's IP (IPv6 in its short form), or null when unknown. */
  static String sourceIp(StreamInfo info) {
    if (info.downstreamRemote() != null && info.downstreamRemote().getAddress() != null) {
      return NetUtil.toAddressString(info.downstreamRemote().getAddress());
    }
    String a = info.downstreamAddress();
    return a == null || a.isEmpty() ? null : a;
  }

  /** The first value of the query parameter as sent (Envoy does not decode it); null when the query has none of that name. */
  static byte[] queryParameter(String query, String name) {
    if (query == null || query.isEmpty()) {
      return null;
    }
    int i = 0;
    int n = query.length();
    while (i <= n) {
      int end = query.indexOf('&', i);
      if (end < 0) {
        end = n;
      }
      int eq = query.indexOf('=', i);
      int keyEnd = eq >= 0 && eq < end ? eq : end;
      if (keyEnd - i == name.length() && query.regionMatches(i, name, 0, name.length())) {
        return keyEnd == end ? new byte[0] : query.substring(keyEnd + 1, end).getBytes(StandardCharsets.ISO_8859_1);
      }
      i = end + 1;
    }
    return null;
  }


}
