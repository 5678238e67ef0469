package io.spillway.edge.config;

import io.spillway.edge.config.HeaderToMetadataConfig.GroupPart;
import io.spillway.edge.config.HeaderToMetadataConfig.LiteralPart;
import io.spillway.edge.config.HeaderToMetadataConfig.SubstitutionPart;
import java.util.ArrayList;
import java.util.List;

/**
 * Where Envoy's RE2 and {@code java.util.regex} part ways, as far as a pattern's text shows it.
 * Patterns run with {@code java.util.regex}; constructs RE2 refuses and Java accepts —
 * back-references ({@code \1}), look-ahead and look-behind ({@code (?=}, {@code (?!},
 * {@code (?<=}, {@code (?<!}), atomic groups ({@code (?>}) and possessive quantifiers
 * ({@code a*+}) — are refused here so a configuration Envoy would reject is rejected too. Other
 * differences (Java's {@code \h}, {@code \R}, character class unions) are not detected.
 */
final class Re2Syntax {
  private Re2Syntax() {}

  /** Refuses a construct RE2 does not have, naming it. */
  static void check(String regex, FieldPath path) throws ConfigException {
    boolean inClass = false;
    for (int i = 0; i < regex.length(); i++) {
      char c = regex.charAt(i);
      if (c == '\\') {
        if (i + 1 < regex.length()) {
          char next = regex.charAt(i + 1);
          if (!inClass && next >= '1' && next <= '9') {
            throw refused(regex, path, "back-reference \\" + next);
          }
          if (next == 'Q') {
            int end = regex.indexOf("\\E", i + 2);
            i = end < 0 ? regex.length() : end + 1;
            continue;
          }
        }
        i++;
      } else if (inClass) {
        if (c == ']') {
          inClass = false;
        }
      } else if (c == '[') {
        inClass = true;
        if (i + 1 < regex.length() && regex.charAt(i + 1) == '^') {
          i++;
        }
        if (i + 1 < regex.length() && regex.charAt(i + 1) == ']') {
          i++; // a leading ']' is a literal
        }
      } else if (c == '(' && regex.startsWith("(?", i)) {
        for (String group : new String[] {"(?=", "(?!", "(?<=", "(?<!", "(?>"}) {
          if (regex.startsWith(group, i)) {
            throw refused(regex, path, group.equals("(?>") ? "atomic group (?>" : "look-around " + group);
          }
        }
      } else if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < regex.length() && regex.charAt(i + 1) == '+') {
        throw refused(regex, path, "possessive quantifier " + c + "+");
      }
    }
  }

  private static ConfigException refused(String regex, FieldPath path, String what) {
    return new ConfigException(path, "\"" + regex + "\" uses a " + what + ", which RE2 (Envoy's regex engine)"
        + " does not support");
  }

  /**
   * RE2's rewrite string: {@code \0} to {@code \9} are capture groups, {@code \\} a backslash,
   * anything else literal; a backslash before anything else, or a group the pattern does not have,
   * is refused (RE2 would refuse the rewrite).
   */
  static List<SubstitutionPart> substitution(String text, int groups, FieldPath path) throws ConfigException {
    List<SubstitutionPart> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\\') {
        literal.append(c);
        continue;
      }
      if (i + 1 >= text.length()) {
        throw new ConfigException(path, "\"" + text + "\" ends with a single backslash (write \\\\ for one)");
      }
      char next = text.charAt(++i);
      if (next == '\\') {
        literal.append('\\');
      } else if (next >= '0' && next <= '9') {
        int group = next - '0';
        if (group > groups) {
          throw new ConfigException(path, "\"" + text + "\" refers to group \\" + group + "; the pattern has "
              + groups + (groups == 1 ? " group" : " groups"));
        }
        if (!literal.isEmpty()) {
          parts.add(new LiteralPart(literal.toString()));
          literal.setLength(0);
        }
        parts.add(new GroupPart(group));
      } else {
        throw new ConfigException(path, "\"" + text + "\": \\" + next + " is not a group (\\0 to \\9) or \\\\");
      }
    }
    if (!literal.isEmpty()) {
      parts.add(new LiteralPart(literal.toString()));
    }
    return parts;
  }
}
