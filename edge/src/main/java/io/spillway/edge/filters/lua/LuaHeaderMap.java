package io.spillway.edge.filters.lua;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.luaj.vm2.LuaError;

/**
 * A header map as a script sees it (Envoy's {@code HeaderMapWrapper}): lowercase names, the
 * pseudo-headers of a request ({@code :method}, {@code :scheme}, {@code :authority},
 * {@code :path}) and of a response ({@code :status}) among the fields, several values per name.
 * Names and values a script sets are checked (a token, no CR, LF or NUL), so no script can split
 * a message. Records whether the script changed it. Used within one call into the script only.
 */
final class LuaHeaderMap {
  private final LuaCall call;
  private final RequestHeaders request;
  private final ResponseHeaders response;
  private final HttpHeaders fields;
  private boolean modified;

  private LuaHeaderMap(LuaCall call, RequestHeaders request, ResponseHeaders response, HttpHeaders fields) {
    this.call = call;
    this.request = request;
    this.response = response;
    this.fields = fields;
  }

  static LuaHeaderMap of(LuaCall call, RequestHeaders request) {
    return new LuaHeaderMap(call, request, null, request.headers());
  }

  static LuaHeaderMap of(LuaCall call, ResponseHeaders response) {
    return new LuaHeaderMap(call, null, response, response.headers());
  }

  /** Trailers: plain fields, no pseudo-headers. */
  static LuaHeaderMap trailers(LuaCall call, HttpHeaders trailers) {
    return new LuaHeaderMap(call, null, null, trailers);
  }

  boolean modified() {
    return modified;
  }

  /** Every value of {@code name}, in order; empty when there is none. */
  List<String> values(String name) {
    call.checkLive();
    String key = name.toLowerCase(Locale.ROOT);
    String pseudo = pseudo(key);
    if (pseudo != null) {
      return List.of(pseudo);
    }
    if (key.startsWith(":") || (request != null && key.equals("host"))) {
      return List.of();
    }
    return fields.getAll(key);
  }

  /** The values joined by {@code ,}, or null (Envoy's {@code get}). */
  String get(String name) {
    List<String> all = values(name);
    return switch (all.size()) {
      case 0 -> null;
      case 1 -> all.get(0);
      default -> String.join(",", all);
    };
  }

  void add(String name, String value) {
    String key = checkedName(name);
    checkValue(value);
    if (!setPseudo(key, value)) {
      fields.add(key, value);
    }
    modified = true;
  }

  void replace(String name, String value) {
    String key = checkedName(name);
    checkValue(value);
    if (!setPseudo(key, value)) {
      fields.set(key, value);
    }
    modified = true;
  }

  void remove(String name) {
    String key = checkedName(name);
    if (key.startsWith(":") || (request != null && key.equals("host"))) {
      throw new LuaError("cannot remove " + key);
    }
    if (fields.contains(key)) {
      fields.remove(key);
      modified = true;
    }
  }

  /** Sets the body's new length (a script replaced the body). */
  void setContentLength(long length) {
    fields.remove(HttpHeaderNames.TRANSFER_ENCODING);
    fields.set(HttpHeaderNames.CONTENT_LENGTH, Long.toString(length));
    modified = true;
  }

  /** Every field as (name, value) pairs, pseudo-headers first (a copy: the script may change the map afterwards). */
  List<String[]> entries() {
    call.checkLive();
    List<String[]> out = new ArrayList<>(fields.size() + 4);
    if (request != null) {
      out.add(new String[] {":method", request.method()});
      out.add(new String[] {":scheme", request.scheme()});
      out.add(new String[] {":authority", request.authority()});
      out.add(new String[] {":path", request.pathAndQuery()});
    } else if (response != null) {
      out.add(new String[] {":status", Integer.toString(response.status())});
    }
    for (Map.Entry<String, String> e : fields) {
      out.add(new String[] {e.getKey().toLowerCase(Locale.ROOT), e.getValue()});
    }
    return out;
  }

  private String pseudo(String key) {
    if (request != null) {
      return switch (key) {
        case ":method" -> request.method();
        case ":scheme" -> request.scheme();
        case ":authority" -> request.authority();
        case ":path" -> request.pathAndQuery();
        default -> null;
      };
    }
    if (response != null && key.equals(":status")) {
      return Integer.toString(response.status());
    }
    return null;
  }

  /** Sets a pseudo-header (and a request's {@code host}, its authority); false for an ordinary field. */
  private boolean setPseudo(String key, String value) {
    if (request != null) {
      switch (key) {
        case ":method" -> request.setMethod(token(value, key));
        case ":scheme" -> request.setScheme(token(value, key));
        case ":authority", "host" -> request.setAuthority(value);
        case ":path" -> {
          if (value.isEmpty()) {
            throw new LuaError(":path must not be empty");
          }
          request.setPathAndQuery(value);
        }
        default -> {
          return pseudoOrField(key);
        }
      }
      return true;
    }
    if (response != null && key.equals(":status")) {
      response.setStatus(status(value));
      return true;
    }
    return pseudoOrField(key);
  }

  private static boolean pseudoOrField(String key) {
    if (key.startsWith(":")) {
      throw new LuaError("unknown pseudo-header " + key);
    }
    return false;
  }

  /** A {@code :status} value: three digits, 100 to 999. */
  static int status(String value) {
    if (value.length() == 3 && Character.isDigit(value.charAt(0)) && Character.isDigit(value.charAt(1))
        && Character.isDigit(value.charAt(2)) && value.charAt(0) != '0') {
      return Integer.parseInt(value);
    }
    throw new LuaError("invalid :status \"" + value + "\"");
  }

  private String checkedName(String name) {
    call.checkLive();
    String key = name.toLowerCase(Locale.ROOT);
    int from = key.startsWith(":") ? 1 : 0;
    if (key.length() == from) {
      throw new LuaError("invalid header name \"" + name + "\"");
    }
    for (int i = from; i < key.length(); i++) {
      if (!tchar(key.charAt(i))) {
        throw new LuaError("invalid header name \"" + name + "\"");
      }
    }
    return key;
  }

  private static String token(String value, String key) {
    if (value.isEmpty()) {
      throw new LuaError(key + " must not be empty");
    }
    for (int i = 0; i < value.length(); i++) {
      if (!tchar(value.charAt(i))) {
        throw new LuaError("invalid " + key + " \"" + value + "\"");
      }
    }
    return value;
  }

  static void checkValue(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw new LuaError("invalid header value: CR, LF and NUL are not allowed");
      }
    }
  }

  /** RFC 9110 §5.6.2 tchar. */
  private static boolean tchar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }
}
