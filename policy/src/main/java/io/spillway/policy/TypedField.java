package io.spillway.policy;

/**
 * What {@link ValueReader} needs of a field to read one JSON or text value: its kind and the two
 * messages it gives. Implemented by the overload table ({@link PolicyField}) and by a rate limit
 * field at its place in the list ({@link RateLimitField#at}).
 */
interface TypedField {

  /** The kind of value. */
  FieldType type();

  /** The message for a value of the wrong JSON type, naming the field's path. */
  String typeMessage();

  /** The message for a value outside the range, naming the field's path; null without a range. */
  String rangeMessage();

  /** An enum field's value spelled {@code text} exactly as in JSON, or null when it is none: a {@link Mode} unless the field says otherwise. */
  default Object enumValue(String text) {
    for (Mode mode : Mode.values()) {
      if (mode.jsonName().equals(text)) {
        return mode;
      }
    }
    return null;
  }
}
