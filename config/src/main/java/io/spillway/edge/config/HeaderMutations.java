package io.spillway.edge.config;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;

/**
 * Header additions and removals of a route, virtual host or route configuration.
 *
 * @param add headers to add, in order; {@code append=false} replaces existing values
 * @param remove lower-case names to remove
 */
public record HeaderMutations(List<HeaderValue> add, List<String> remove) {

  public static final HeaderMutations NONE = new HeaderMutations(List.of(), List.of());

  public HeaderMutations {
    add = List.copyOf(add);
    remove = List.copyOf(remove);
  }

  public boolean isEmpty() {
    return add.isEmpty() && remove.isEmpty();
  }

  /** Whether an added value has command operators, and so needs a {@link ValueFormatter}. */
  public boolean hasFormattedValues() {
    for (int i = 0; i < add.size(); i++) {
      if (add.get(i).format() != null) {
        return true;
      }
    }
    return false;
  }

  /** Applies literal-only mutations (the translator allows command operators only where a formatter exists). */
  public void applyTo(HttpHeaders headers) {
    applyTo(headers, ValueFormatter.LITERAL_ONLY);
  }

  /**
   * Applies these to {@code headers}: removals first, then additions, as Envoy's header parser
   * does. A value that comes out empty is not added unless its {@code keep_empty_value} says so.
   */
  public void applyTo(HttpHeaders headers, ValueFormatter formatter) {
    for (int i = 0; i < remove.size(); i++) {
      headers.remove(remove.get(i));
    }
    for (int i = 0; i < add.size(); i++) {
      HeaderValue h = add.get(i);
      String value = h.format() == null ? h.value() : formatter.format(h.format());
      if (value.isEmpty() && !h.keepEmptyValue()) {
        continue;
      }
      if (h.append()) {
        headers.add(h.name(), value);
      } else {
        headers.set(h.name(), value);
      }
    }
  }

  /**
   * One header to add; {@code name} is lower case.
   *
   * @param value the value when it is literal, else ""
   * @param format the value's command operators, or null for a literal value
   * @param keepEmptyValue {@code keep_empty_value}: add the header even when its value is empty
   */
  public record HeaderValue(String name, String value, boolean append, Format format, boolean keepEmptyValue) {
    /** A literal value, dropped when empty (Envoy's default). */
    public HeaderValue(String name, String value, boolean append) {
      this(name, value, append, null, false);
    }
  }

  /**
   * A header value with command operators ({@code %DOWNSTREAM_REMOTE_ADDRESS%}, {@code %REQ(x)%}),
   * parsed as access log formats are. It keeps the form the hot path compiles it to, made on first
   * use and kept with the snapshot it belongs to (two threads may both make it; either is kept).
   */
  public static final class Format {
    private final List<AccessLogConfig.FormatToken> tokens;
    private volatile Object compiled;

    public Format(List<AccessLogConfig.FormatToken> tokens) {
      this.tokens = List.copyOf(tokens);
    }

    public List<AccessLogConfig.FormatToken> tokens() {
      return tokens;
    }

    /** The compiled form, made by {@code compiler} the first time. */
    @SuppressWarnings("unchecked")
    public <T> T compiled(java.util.function.Function<List<AccessLogConfig.FormatToken>, T> compiler) {
      Object c = compiled;
      if (c == null) {
        c = compiler.apply(tokens);
        compiled = c;
      }
      return (T) c;
    }

    @Override
    public String toString() {
      return "Format" + tokens;
    }
  }

  /** Formats a header value for the message being changed. */
  @FunctionalInterface
  public interface ValueFormatter {
    /** For mutations without command operators. */
    ValueFormatter LITERAL_ONLY = f -> {
      throw new IllegalStateException("a header value with command operators needs a formatter: " + f);
    };

    String format(Format format);
  }
}
