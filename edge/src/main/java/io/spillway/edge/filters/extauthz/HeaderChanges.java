package io.spillway.edge.filters.extauthz;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.authz.AuthzHeader;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.HeaderRules;
import java.util.List;

/**
 * Applies an authorization service's changes (Envoy's ext_authz {@code onComplete}): header options
 * by their action, removals, query parameters. What the service sends is untrusted: a header with a
 * name that is not a token, a value with CR, LF or NUL, a pseudo-header, {@code host} or a framing
 * header ({@code content-length}, {@code transfer-encoding}, hop-by-hop ones), a query
 * parameter that would break the path — each is skipped and counted ({@code ext_authz.invalid}).
 */
final class HeaderChanges {

  private HeaderChanges() {}

  /**
   * Applies {@code changes} to {@code headers}.
   *
   * @return how many were skipped as invalid
   */
  static int apply(List<AuthzHeader> changes, HttpHeaders headers) {
    int invalid = 0;
    for (int i = 0; i < changes.size(); i++) {
      AuthzHeader h = changes.get(i);
      if (!HeaderRules.settable(h.name(), h.value())) {
        invalid++;
        continue;
      }
      switch (h.action()) {
        case APPEND_TO_VALUE -> {
          String existing = headers.get(h.name());
          if (existing == null) {
            headers.add(h.name(), h.value());
          } else {
            headers.set(h.name(), String.join(",", headers.getAll(h.name())) + "," + h.value());
          }
        }
        case ADD -> headers.add(h.name(), h.value());
        case ADD_IF_ABSENT -> {
          if (!headers.contains(h.name())) {
            headers.add(h.name(), h.value());
          }
        }
        case OVERWRITE_IF_EXISTS -> {
          if (headers.contains(h.name())) {
            headers.set(h.name(), h.value());
          }
        }
        case OVERWRITE -> headers.set(h.name(), h.value());
      }
    }
    return invalid;
  }

  /**
   * Removes the named request headers; pseudo-headers and {@code host} stay (Envoy's
   * {@code isRemovableHeader}).
   *
   * @return how many names were refused
   */
  static int remove(List<String> names, HttpHeaders headers) {
    int invalid = 0;
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (name.isEmpty() || name.charAt(0) == ':' || name.equals("host")) {
        invalid++;
        continue;
      }
      headers.remove(name);
    }
    return invalid;
  }

  /**
   * Sets and removes query parameters of the request's path (one value per key, as Envoy's
   * query map; the other parameters keep their order).
   *
   * @return how many changes were refused
   */
  static int query(List<AuthzAnswer.QueryParameter> set, List<String> remove, RequestHeaders request) {
    if (set.isEmpty() && remove.isEmpty()) {
      return 0;
    }
    String pathAndQuery = request.pathAndQuery();
    int q = pathAndQuery.indexOf('?');
    String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    java.util.LinkedHashMap<String, String> params = new java.util.LinkedHashMap<>();
    java.util.List<String> order = new java.util.ArrayList<>();
    if (q >= 0 && q + 1 < pathAndQuery.length()) {
      for (String part : pathAndQuery.substring(q + 1).split("&")) {
        if (part.isEmpty()) {
          continue;
        }
        int eq = part.indexOf('=');
        String key = eq < 0 ? part : part.substring(0, eq);
        String value = eq < 0 ? null : part.substring(eq + 1);
        if (!params.containsKey(key)) {
          order.add(key);
        }
        params.put(key, value);
      }
    }
    int invalid = 0;
    for (int i = 0; i < set.size(); i++) {
      AuthzAnswer.QueryParameter p = set.get(i);
      if (p.key().isEmpty() || !queryText(p.key(), true) || !queryText(p.value(), false)) {
        invalid++;
        continue;
      }
      if (!params.containsKey(p.key())) {
        order.add(p.key());
      }
      params.put(p.key(), p.value());
    }
    for (int i = 0; i < remove.size(); i++) {
      params.remove(remove.get(i));
    }
    StringBuilder out = new StringBuilder(path);
    char sep = '?';
    for (String key : order) {
      if (!params.containsKey(key)) {
        continue;
      }
      out.append(sep).append(key);
      String value = params.get(key);
      if (value != null) {
        out.append('=').append(value);
      }
      sep = '&';
    }
    request.setPathAndQuery(out.toString());
    return invalid;
  }

  /** Characters a query may carry as they are (RFC 3986 query, without the separators). */
  private static boolean queryText(String text, boolean key) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= 0x20 || c >= 0x7f || c == '#' || c == '&' || (key && c == '=')) {
        return false;
      }
    }
    return true;
  }
}
