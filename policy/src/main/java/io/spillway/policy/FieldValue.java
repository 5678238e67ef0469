package io.spillway.policy;

import java.util.Objects;

/**
 * A field's value together with where it came from.
 *
 * @param field the field
 * @param value the value, of the field's Java type ({@link PolicyField#javaType()})
 * @param source where the value came from
 */
public record FieldValue(PolicyField field, Object value, Source source) {

  /** Checks the parts are present and the value has the field's type. */
  public FieldValue {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(source, "source");
    if (!field.javaType().isInstance(value)) {
      throw new IllegalArgumentException(field.path() + " needs a value of type " + field.javaType().getSimpleName() + ", not " + value);
    }
  }
}
