package io.spillway.edge.filters.lua;

import static io.spillway.edge.filters.lua.LuaFunctions.fn;
import static io.spillway.edge.filters.lua.LuaFunctions.self;
import static io.spillway.edge.filters.lua.LuaFunctions.stringOrNil;

import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.router.RouteEntry;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * The objects a stream handle hands out, as Lua userdata with their methods (Envoy's header map,
 * buffer, metadata, stream info, connection and SSL connection objects). The metatables are made
 * once per sandbox, so per worker; a call allocates only the userdata it asks for.
 */
final class LuaObjects {
  /** The canonical name, under which a route's metadata is looked up when the entry's own name has none. */
  static final String CANONICAL_NAME = "envoy.filters.http.lua";

  private final LuaTable headersMeta;
  private final LuaTable bodyMeta;
  private final LuaTable metadataMeta;
  private final LuaTable streamInfoMeta;
  private final LuaTable connectionMeta;
  private final LuaTable sslMeta;

  LuaObjects() {
    headersMeta = headers();
    bodyMeta = body();
    metadataMeta = metadata();
    streamInfoMeta = streamInfo();
    connectionMeta = connection();
    sslMeta = ssl();
  }

  LuaValue wrap(LuaHeaderMap headers) {
    return headers == null ? LuaValue.NIL : new LuaUserdata(headers, headersMeta);
  }

  LuaValue wrap(LuaBody body) {
    return body == null ? LuaValue.NIL : new LuaUserdata(body, bodyMeta);
  }

  LuaValue metadataOf(LuaCall call) {
    return new LuaUserdata(new Metadata(call, routeMetadata(call)), metadataMeta);
  }

  LuaValue streamInfoOf(LuaCall call) {
    return new LuaUserdata(call, streamInfoMeta);
  }

  LuaValue connectionOf(LuaCall call) {
    return new LuaUserdata(call, connectionMeta);
  }

  private LuaValue sslOf(LuaCall call) {
    call.checkLive();
    DownstreamTls tls = call.stream().streamInfo().downstreamTls();
    return tls == null ? LuaValue.NIL : new LuaUserdata(new Ssl(call, tls), sslMeta);
  }

  private static LuaTable headers() {
    LuaTable m = new LuaTable();
    m.rawset("get", fn("get", a -> stringOrNil(self(a, LuaHeaderMap.class).get(a.checkjstring(2)))));
    m.rawset("getAtIndex", fn("getAtIndex", a -> {
      List<String> all = self(a, LuaHeaderMap.class).values(a.checkjstring(2));
      int i = a.checkint(3);
      return i >= 0 && i < all.size() ? LuaValue.valueOf(all.get(i)) : LuaValue.NIL;
    }));
    m.rawset("getNumValues", fn("getNumValues",
        a -> LuaValue.valueOf(self(a, LuaHeaderMap.class).values(a.checkjstring(2)).size())));
    m.rawset("add", fn("add", a -> {
      self(a, LuaHeaderMap.class).add(a.checkjstring(2), a.checkjstring(3));
      return LuaValue.NONE;
    }));
    m.rawset("replace", fn("replace", a -> {
      self(a, LuaHeaderMap.class).replace(a.checkjstring(2), a.checkjstring(3));
      return LuaValue.NONE;
    }));
    m.rawset("remove", fn("remove", a -> {
      self(a, LuaHeaderMap.class).remove(a.checkjstring(2));
      return LuaValue.NONE;
    }));
    LuaTable meta = LuaFunctions.metatable(m);
    meta.rawset("__pairs", fn("__pairs", a -> LuaFunctions.pairsOver(self(a, LuaHeaderMap.class).entries())));
    return meta;
  }

  private static LuaTable body() {
    LuaTable m = new LuaTable();
    m.rawset("length", fn("length", a -> LuaValue.valueOf(self(a, LuaBody.class).length())));
    m.rawset("getBytes", fn("getBytes", a -> self(a, LuaBody.class).getBytes(a.checkint(2), a.checkint(3))));
    m.rawset("setBytes", fn("setBytes", a -> {
      self(a, LuaBody.class).setBytes(a.checkstring(2));
      return LuaValue.NONE;
    }));
    return LuaFunctions.metatable(m);
  }

  /** A route's metadata under the filter's name (else Envoy's canonical name): string values only. */
  private record Metadata(LuaCall call, Map<String, String> values) {}

  private static Map<String, String> routeMetadata(LuaCall call) {
    call.checkLive();
    RouteEntry route = call.stream().route();
    if (route == null) {
      return Map.of();
    }
    Map<String, String> own = under(route.route().metadata(), call.filterName());
    return own.isEmpty() ? under(route.route().metadata(), CANONICAL_NAME) : own;
  }

  private static Map<String, String> under(Map<String, String> flat, String filter) {
    String prefix = filter + ".";
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, String> e : flat.entrySet()) {
      if (e.getKey().startsWith(prefix)) {
        out.put(e.getKey().substring(prefix.length()), e.getValue());
      }
    }
    return out;
  }

  private static LuaTable metadata() {
    LuaTable m = new LuaTable();
    m.rawset("get", fn("get", a -> {
      Metadata md = self(a, Metadata.class);
      md.call().checkLive();
      return stringOrNil(md.values().get(a.checkjstring(2)));
    }));
    LuaTable meta = LuaFunctions.metatable(m);
    meta.rawset("__pairs", fn("__pairs", a -> {
      Metadata md = self(a, Metadata.class);
      md.call().checkLive();
      List<String[]> entries = new ArrayList<>();
      md.values().forEach((k, v) -> entries.add(new String[] {k, v}));
      return LuaFunctions.pairsOver(entries);
    }));
    return meta;
  }

  private LuaTable streamInfo() {
    LuaTable m = new LuaTable();
    m.rawset("protocol", fn("protocol", a -> LuaValue.valueOf(info(a).isHttp2() ? "HTTP/2" : "HTTP/1.1")));
    m.rawset("downstreamRemoteAddress", fn("downstreamRemoteAddress",
        a -> address(info(a).downstreamRemote())));
    m.rawset("downstreamDirectRemoteAddress", fn("downstreamDirectRemoteAddress",
        a -> address(info(a).downstreamDirectRemote())));
    m.rawset("downstreamLocalAddress", fn("downstreamLocalAddress", a -> address(info(a).downstreamLocal())));
    m.rawset("downstreamDirectLocalAddress", fn("downstreamDirectLocalAddress",
        a -> address(info(a).downstreamLocal())));
    m.rawset("routeName", fn("routeName", a -> {
      RouteEntry route = self(a, LuaCall.class).stream().route();
      return LuaValue.valueOf(route == null ? "" : route.route().name());
    }));
    m.rawset("downstreamSslConnection", fn("downstreamSslConnection", a -> sslOf(self(a, LuaCall.class))));
    return LuaFunctions.metatable(m);
  }

  private static StreamInfo info(Varargs a) {
    LuaCall call = self(a, LuaCall.class);
    call.checkLive();
    return call.stream().streamInfo();
  }

  /** Envoy's form: {@code 1.2.3.4:80}, {@code [::1]:80}; nil when the connection did not say. */
  private static LuaValue address(InetSocketAddress a) {
    if (a == null || a.getAddress() == null) {
      return LuaValue.NIL;
    }
    String ip = io.netty.util.NetUtil.toAddressString(a.getAddress());
    return LuaValue.valueOf((ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + a.getPort());
  }

  private LuaTable connection() {
    LuaTable m = new LuaTable();
    m.rawset("ssl", fn("ssl", a -> sslOf(self(a, LuaCall.class))));
    return LuaFunctions.metatable(m);
  }

  /** The TLS facts of the downstream connection. */
  private record Ssl(LuaCall call, DownstreamTls tls) {
    DownstreamTls live() {
      call.checkLive();
      return tls;
    }
  }

  private static LuaTable ssl() {
    LuaTable m = new LuaTable();
    m.rawset("peerCertificatePresented", fn("peerCertificatePresented",
        a -> LuaValue.valueOf(!self(a, Ssl.class).live().subject().isEmpty())));
    m.rawset("uriSanPeerCertificate", fn("uriSanPeerCertificate",
        a -> LuaFunctions.strings(self(a, Ssl.class).live().uriSans())));
    m.rawset("dnsSansPeerCertificate", fn("dnsSansPeerCertificate",
        a -> LuaFunctions.strings(self(a, Ssl.class).live().dnsSans())));
    m.rawset("subjectPeerCertificate", fn("subjectPeerCertificate",
        a -> LuaValue.valueOf(self(a, Ssl.class).live().subject())));
    return LuaFunctions.metatable(m);
  }
}
