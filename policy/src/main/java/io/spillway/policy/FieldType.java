package io.spillway.policy;

/** The kind of value a policy field holds, as the console and the schema name it. */
public enum FieldType {
  /** One of {@link Mode}'s JSON names; Java type {@link Mode}. */
  ENUM("enum", "string", Mode.class),
  /** A whole number; Java type {@link Integer}. JSON {@code 5.0} counts as the integer 5. */
  INTEGER("integer", "integer", Integer.class),
  /** Any finite number; Java type {@link Double}. */
  NUMBER("number", "number", Double.class),
  /** {@code true} or {@code false}; Java type {@link Boolean}. */
  BOOLEAN("boolean", "boolean", Boolean.class),
  /** A JSON string; Java type {@link String}. */
  STRING("string", "string", String.class),
  /** A JSON array of strings; Java type {@link java.util.List}. */
  STRING_LIST("stringList", "array", java.util.List.class);

  private final String schemaName;
  private final String jsonSchemaType;
  private final Class<?> javaType;

  FieldType(String schemaName, String jsonSchemaType, Class<?> javaType) {
    this.schemaName = schemaName;
    this.jsonSchemaType = jsonSchemaType;
    this.javaType = javaType;
  }

  /** The name in {@link PolicySchema#describe()}: enum, integer, number or boolean. */
  public String schemaName() {
    return schemaName;
  }

  /** The JSON Schema {@code type}: string, integer, number or boolean. */
  public String jsonSchemaType() {
    return jsonSchemaType;
  }

  /** The Java type of a value of this kind. */
  public Class<?> javaType() {
    return javaType;
  }

  /** Whether this kind has a numeric range. */
  public boolean isNumeric() {
    return this == INTEGER || this == NUMBER;
  }
}
