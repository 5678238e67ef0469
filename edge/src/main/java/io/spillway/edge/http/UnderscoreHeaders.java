package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HttpConnectionManagerConfig.HeadersWithUnderscoresAction;
import io.spillway.edge.stats.Counter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Request header names with an underscore, for {@code headers_with_underscores_action} (Envoy's
 * {@code HeaderUtility::headerNameContainsUnderscore}, which its codecs apply to every request
 * header). Underscores are legal in field names (RFC 9110 §5.1) but CGI-style servers fold
 * {@code x_foo} and {@code x-foo} into one variable, so a header the edge checked can be smuggled
 * past it under the other spelling.
 */
final class UnderscoreHeaders {
  private UnderscoreHeaders() {
  }

  /**
   * {@code headers_with_underscores_action} on a request's fields: DROP_HEADER removes them and
   * counts them in {@code dropped}; REJECT_REQUEST refuses a request that holds one; ALLOW lets
   * everything through.
   *
   * @return whether the request is refused
   */
  static boolean refuses(HttpHeaders headers, HeadersWithUnderscoresAction action, Counter dropped) {
    return switch (action) {
      case ALLOW -> false;
      case DROP_HEADER -> {
        int n = drop(headers);
        if (n > 0) {
          dropped.add(n);
        }
        yield false;
      }
      case REJECT_REQUEST -> present(headers);
    };
  }

  /** Whether any field name holds {@code _}. */
  static boolean present(HttpHeaders headers) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
      if (hasUnderscore(it.next().getKey())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Removes every field whose name holds {@code _}.
   *
   * @return the fields removed (each repetition of a name counts, as Envoy counts them)
   */
  static int drop(HttpHeaders headers) {
    if (!present(headers)) {
      return 0;
    }
    List<String> names = new ArrayList<>(2);
    int fields = 0;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
      CharSequence name = it.next().getKey();
      if (hasUnderscore(name)) {
        fields++;
        String s = name.toString();
        if (!names.contains(s)) {
          names.add(s);
        }
      }
    }
    for (int i = 0; i < names.size(); i++) {
      headers.remove(names.get(i));
    }
    return fields;
  }

  private static boolean hasUnderscore(CharSequence name) {
    for (int i = 0; i < name.length(); i++) {
      if (name.charAt(i) == '_') {
        return true;
      }
    }
    return false;
  }
}
