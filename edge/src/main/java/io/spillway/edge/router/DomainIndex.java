package io.spillway.edge.router;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finds the virtual host for an authority with Envoy's precedence: exact domain, then the longest
 * suffix wildcard ({@code *.example.com}), then the longest prefix wildcard ({@code api.*}), then
 * {@code *}. As in Envoy (without {@code strip_any_host_port}), the authority is matched as sent,
 * port included: {@code api.example.com:8443} does not match the domain {@code api.example.com}.
 *
 * @param <T> the virtual host type
 */
final class DomainIndex<T> {

  private final Map<String, T> exact;
  private final List<Map.Entry<String, T>> suffixes;
  private final List<Map.Entry<String, T>> prefixes;
  private final T any;

  private DomainIndex(Map<String, T> exact, List<Map.Entry<String, T>> suffixes,
      List<Map.Entry<String, T>> prefixes, T any) {
    this.exact = exact;
    this.suffixes = suffixes;
    this.prefixes = prefixes;
    this.any = any;
  }

  static <T> Builder<T> builder() {
    return new Builder<>();
  }

  T find(String authority) {
    String host = authority.toLowerCase(Locale.ROOT);
    T found = findHost(host);
    return found != null ? found : any;
  }

  private T findHost(String host) {
    T found = exact.get(host);
    if (found != null) {
      return found;
    }
    for (int i = 0; i < suffixes.size(); i++) {
      Map.Entry<String, T> e = suffixes.get(i);
      // "*.example.com" is stored as ".example.com"; Envoy requires a non-empty label before it.
      if (host.length() > e.getKey().length() && host.endsWith(e.getKey())) {
        return e.getValue();
      }
    }
    for (int i = 0; i < prefixes.size(); i++) {
      Map.Entry<String, T> e = prefixes.get(i);
      if (host.length() > e.getKey().length() && host.startsWith(e.getKey())) {
        return e.getValue();
      }
    }
    return null;
  }

  static final class Builder<T> {
    private final Map<String, T> exact = new HashMap<>();
    private final List<Map.Entry<String, T>> suffixes = new ArrayList<>();
    private final List<Map.Entry<String, T>> prefixes = new ArrayList<>();
    private T any;

    Builder<T> add(String domain, T value) {
      String d = domain.toLowerCase(Locale.ROOT);
      if (d.equals("*")) {
        if (any == null) {
          any = value;
        }
      } else if (d.startsWith("*")) {
        suffixes.add(Map.entry(d.substring(1), value));
      } else if (d.endsWith("*")) {
        prefixes.add(Map.entry(d.substring(0, d.length() - 1), value));
      } else {
        exact.putIfAbsent(d, value);
      }
      return this;
    }

    DomainIndex<T> build() {
      Comparator<Map.Entry<String, T>> longestFirst =
          Comparator.comparingInt((Map.Entry<String, T> e) -> e.getKey().length()).reversed();
      suffixes.sort(longestFirst);
      prefixes.sort(longestFirst);
      return new DomainIndex<>(Map.copyOf(exact), List.copyOf(suffixes), List.copyOf(prefixes), any);
    }
  }
}
