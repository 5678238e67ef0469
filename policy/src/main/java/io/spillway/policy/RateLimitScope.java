package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Where a rate limit's count is kept; written lower-case in JSON. */
public enum RateLimitScope {
  /** The default: each edge counts alone, in its own lock-free buckets. */
  EDGE,
  /** Every edge that has the limit (by name, under one Redis key prefix) counts against one shared count in Redis. */
  FLEET;

  /** The JSON spelling: {@code edge} or {@code fleet}. */
  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The JSON spellings, in order. */
  public static List<String> jsonNames() {
    return Arrays.stream(values()).map(RateLimitScope::jsonName).toList();
  }

  /**
   * The scope spelled exactly as in JSON.
   *
   * @throws IllegalArgumentException for any other text
   */
  @JsonCreator
  public static RateLimitScope fromJson(String text) {
    for (RateLimitScope scope : values()) {
      if (scope.jsonName().equals(text)) {
        return scope;
      }
    }
    throw new IllegalArgumentException("unknown scope: " + text);
  }
}
