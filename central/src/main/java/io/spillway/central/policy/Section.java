package io.spillway.central.policy;

import java.util.Optional;

/** The policy sections of one edge, each replaced, deleted and revised on its own. */
public enum Section {
  /** The overload policy; validated with the shared {@code spillway-policy} module. */
  OVERLOAD("overload"),
  /** The edge's extra access log; validated with the shared module's {@code AccessLogJson}, sent in the policy resource. */
  ACCESS_LOG("accessLog"),
  /** Rate limits; validated with the shared module's {@code RateLimitJson}, sent in the policy resource. */
  RATE_LIMITS("rateLimits");

  private final String jsonName;

  Section(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The key in the API and the value of the database's {@code section} column. */
  public String jsonName() {
    return jsonName;
  }

  /** The section with this name. */
  public static Optional<Section> fromJsonName(String name) {
    for (Section section : values()) {
      if (section.jsonName.equals(name)) {
        return Optional.of(section);
      }
    }
    return Optional.empty();
  }
}
