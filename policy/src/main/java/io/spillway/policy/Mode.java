package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What a limiter does with what it measures; written lower-case in JSON and in the environment. */
public enum Mode {
  /** Nothing is counted, learned or refused. */
  OFF,
  /** The default: counts what {@code enforce} would refuse, refuses nothing. */
  SHADOW,
  /** Refuses everything above the limit. */
  ENFORCE;

  /** The JSON spelling: {@code off}, {@code shadow} or {@code enforce}. */
  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The mode spelled exactly as in JSON ({@code off}, {@code shadow}, {@code enforce}).
   *
   * @throws IllegalArgumentException for any other text
   */
  @JsonCreator
  public static Mode fromJson(String text) {
    for (Mode mode : values()) {
      if (mode.jsonName().equals(text)) {
        return mode;
      }
    }
    throw new IllegalArgumentException("unknown mode: " + text);
  }
}
