package io.spillway.policy;

import java.util.Arrays;
import java.util.List;

/**
 * The one table of the fields of a rate limit ({@code rateLimits.limits[i]}, SPEC §9): JSON key,
 * type, inclusive range, default, console label and hint. Reading, validation, the messages and the
 * schemas are generated from it, as {@link PolicyField} does for the overload section. The order of
 * the constants is the order problems are reported in and fields are shown in.
 *
 * <p>A field's path carries the limit's index, e.g. {@code rateLimits.limits[1].rate}; {@link #at}
 * gives the field at an index with its messages.
 */
public enum RateLimitField {
  NAME("name", FieldType.STRING, null, null, null, true,
      "Name", "Names the limit in metrics and on /ratelimits: letters, digits, '.', '_' or '-', at most 64, unique."),
  KEY("key", FieldType.STRING, null, null, null, true,
      "Key", "What callers are told apart by: clientAddress (after the connection manager's xff_num_trusted_hops), "
          + "header:<name>, route (the route's name), tier (the route's admission tier) or subject (the sub claim of "
          + "the JWT jwt_authn verified)."),
  RATE("rate", FieldType.NUMBER, 0.001, 1_000_000.0, null, true,
      "Rate (requests/s)", "Requests per second each key may send on average; one token comes back every 1/rate seconds."),
  BURST("burst", FieldType.INTEGER, 1, 1_000_000, null, true,
      "Burst", "Requests a key may send at once before the rate applies; the bucket starts full."),
  MODE("mode", FieldType.ENUM, null, null, Mode.SHADOW, false,
      "Mode", "Off checks nothing; shadow counts what enforce would refuse and refuses nothing; enforce answers 429."),
  RETRY_AFTER_SECONDS("retryAfterSeconds", FieldType.INTEGER, 1, 3600, null, false,
      "Retry-After (s)", "Seconds a refused caller is told to wait; absent: the seconds until its bucket refills, rounded up."),
  EXEMPT("exempt", FieldType.STRING_LIST, 0, 100, List.of(), false,
      "Exempt", "Key values never limited; for clientAddress, addresses or CIDR prefixes such as 10.0.0.0/8; "
          + "for tier, tier names."),
  MAX_KEYS("maxKeys", FieldType.INTEGER, 1, 1_000_000, 10_000, false,
      "Keys tracked", "Distinct keys the edge keeps a bucket for; beyond it the least recently seen of two candidates is forgotten."),
  SCOPE("scope", FieldType.ENUM, null, null, RateLimitScope.EDGE, false,
      "Scope", "Edge counts on this edge alone; fleet counts every edge that has this limit against one count in Redis "
          + "(the edge needs --redis-uri), falling back to its own count while Redis cannot answer.");

  /** Most limits a policy may hold. */
  public static final int MAX_LIMITS = 64;
  /** Longest name. */
  public static final int MAX_NAME_LENGTH = 64;
  /** Longest exempt entry. */
  public static final int MAX_EXEMPT_LENGTH = 256;
  /** The key whose exempt entries must be IP addresses or CIDR prefixes. */
  public static final String ADDRESS_KEY = "clientAddress";

  /**
   * The shape of an exempt entry for the {@link #ADDRESS_KEY} key, as a regular expression both
   * Java and JavaScript read: an IPv4 address (octets up to 255) with an optional prefix up to 32,
   * or an IPv6 literal's characters (with a colon) and an optional prefix up to 128. It accepts
   * what {@link IpPrefix#parse} accepts; an IPv6 literal of the right characters that is still not
   * one (e.g. {@code 1:::2}) passes it and is refused by the parse.
   */
  public static final String ADDRESS_PATTERN = "(?:(?:[01]?[0-9]?[0-9]|2[0-4][0-9]|25[0-5])(?:\\.(?:[01]?[0-9]?[0-9]|2[0-4][0-9]|25[0-5])){3}"
      + "(?:/(?:0{0,2}[0-9]|0?[12][0-9]|0?3[0-2]))?"
      + "|(?=[^/]*:)[0-9A-Fa-f:.]{2,45}(?:/(?:0{0,2}[0-9]|0?[1-9][0-9]|1[01][0-9]|12[0-8]))?)";

  private final String key;
  private final FieldType type;
  private final Number min;
  private final Number max;
  private final Object defaultValue;
  private final boolean required;
  private final String label;
  private final String hint;

  RateLimitField(String key, FieldType type, Number min, Number max, Object defaultValue, boolean required,
      String label, String hint) {
    this.key = key;
    this.type = type;
    this.min = min;
    this.max = max;
    this.defaultValue = defaultValue;
    this.required = required;
    this.label = label;
    this.hint = hint;
  }

  /** The JSON key inside a limit, e.g. {@code rate}. */
  public String key() {
    return key;
  }

  /** The kind of value. */
  public FieldType type() {
    return type;
  }

  /** The inclusive lower bound (of the value, or of the list's size), or null. */
  public Number min() {
    return min;
  }

  /** The inclusive upper bound (of the value, or of the list's size), or null. */
  public Number max() {
    return max;
  }

  /** The value an absent field means, or null (required, or computed: {@code retryAfterSeconds}). */
  public Object defaultValue() {
    return defaultValue;
  }

  /** Whether every limit must set it. */
  public boolean required() {
    return required;
  }

  /** The console's label. */
  public String label() {
    return label;
  }

  /** One line telling an operator what the field does. */
  public String hint() {
    return hint;
  }

  /**
   * The regular expression a string field's whole value must match (read the same by Java and
   * JavaScript), or null for other fields.
   */
  public String pattern() {
    return switch (this) {
      case NAME -> "[A-Za-z0-9._-]{1," + MAX_NAME_LENGTH + "}";
      case KEY -> "(" + ADDRESS_KEY + "|route|tier|subject|header:" + RateLimitKey.HEADER_NAME + ")";
      default -> null;
    };
  }

  /** The allowed values of an enum field, in JSON spelling; empty for other fields. */
  public List<String> allowedValues() {
    return switch (this) {
      case MODE -> Arrays.stream(Mode.values()).map(Mode::jsonName).toList();
      case SCOPE -> RateLimitScope.jsonNames();
      default -> List.of();
    };
  }

  /** The path with a placeholder for the index, as the schema shows it: {@code rateLimits.limits[].rate}. */
  public String pathTemplate() {
    return RateLimitsPolicy.SECTION + ".limits[]." + key;
  }

  /** The field of the limit at {@code index}. */
  public At at(int index) {
    return new At(this, index);
  }

  /**
   * A field of one limit in the list.
   *
   * @param field the field
   * @param index the limit's index in {@code limits}
   */
  public record At(RateLimitField field, int index) implements TypedField {

    /** E.g. {@code rateLimits.limits[1].rate}. */
    public String path() {
      return RateLimitsPolicy.limitPath(index) + "." + field.key;
    }

    @Override
    public FieldType type() {
      return field.type;
    }

    @Override
    public Object enumValue(String text) {
      return field == SCOPE ? RateLimitScope.jsonNames().contains(text) ? RateLimitScope.fromJson(text) : null
          : TypedField.super.enumValue(text);
    }

    /** E.g. "rateLimits.limits[1].burst must be an integer". */
    @Override
    public String typeMessage() {
      return path() + switch (field.type) {
        case ENUM -> " must be one of " + String.join(", ", field.allowedValues());
        case INTEGER -> " must be an integer";
        case NUMBER -> " must be a number";
        case BOOLEAN -> " must be true or false";
        case STRING -> " must be a string";
        case STRING_LIST -> " must be a list of strings";
      };
    }

    /** E.g. "rateLimits.limits[1].rate must be between 0.001 and 1000000"; null for fields without a range. */
    @Override
    public String rangeMessage() {
      if (field.type == FieldType.STRING_LIST) {
        return path() + " must hold at most " + ValueText.format(field.max) + " entries";
      }
      if (!field.type.isNumeric()) {
        return null;
      }
      return path() + " must be between " + ValueText.format(field.min) + " and " + ValueText.format(field.max);
    }

    /** E.g. "rateLimits.limits[0].rate is required". */
    public String requiredMessage() {
      return path() + " is required";
    }

    /** What a string that does not match {@link RateLimitField#pattern()} is told; null for other fields. */
    public String patternMessage() {
      return switch (field) {
        case NAME -> path() + " must be 1 to " + MAX_NAME_LENGTH + " letters, digits, '.', '_' or '-'";
        case KEY -> path() + " " + RateLimitKey.EXPECTED;
        default -> null;
      };
    }

    /** E.g. "rateLimits.limits[0].exempt[2] must be 1 to 256 characters"; {@code entry} is the entry's index. */
    public String entryLengthMessage(Object entry) {
      return path() + "[" + entry + "] must be 1 to " + MAX_EXEMPT_LENGTH + " characters";
    }

    /** What an exempt entry that is no address or prefix is told under the {@link #ADDRESS_KEY} key. */
    public String entryAddressMessage(Object entry) {
      return path() + "[" + entry + "] must be an IP address or a CIDR prefix such as 10.0.0.0/8 for the "
          + ADDRESS_KEY + " key";
    }

    /** What an exempt entry that is no tier name is told under the {@code tier} key. */
    public String entryTierMessage(Object entry) {
      return path() + "[" + entry + "] must be one of " + String.join(", ", RateLimitKey.TIERS) + " for the tier key";
    }

    /** What a name that an earlier limit ({@code first}) already has is told. */
    public String duplicateMessage(String name, At first) {
      return path() + " \"" + name + "\" is already the name of " + RateLimitsPolicy.limitPath(first.index)
          + "; names must be unique";
    }
  }
}
