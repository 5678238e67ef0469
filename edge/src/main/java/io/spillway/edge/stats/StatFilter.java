package io.spillway.edge.stats;

import java.util.regex.Pattern;

/**
 * Which stats a rendering shows: the admin endpoints' {@code ?filter=} (a regex searched anywhere in
 * the flat name, as Envoy does) and {@code ?usedonly}.
 *
 * @param pattern the filter, or null for all names
 * @param usedOnly show only stats written at least once
 */
public record StatFilter(Pattern pattern, boolean usedOnly) {

  /** Every stat. */
  public static final StatFilter ALL = new StatFilter(null, false);

  /**
   * From the query parameters.
   *
   * @param regex the {@code filter} parameter, or null or empty for none
   * @throws java.util.regex.PatternSyntaxException if {@code regex} is invalid (answer 400)
   */
  public static StatFilter of(String regex, boolean usedOnly) {
    return new StatFilter(regex == null || regex.isEmpty() ? null : Pattern.compile(regex), usedOnly);
  }

  public boolean matches(Stat stat) {
    return (!usedOnly || stat.used()) && (pattern == null || pattern.matcher(stat.name()).find());
  }
}
