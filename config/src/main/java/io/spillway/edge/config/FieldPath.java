package io.spillway.edge.config;

/**
 * Where a value sits in the bootstrap, written the way errors name it: snake_case proto field
 * names joined by dots, {@code [i]} for list elements and {@code ["key"]} for map entries. The
 * root (the Bootstrap itself) is the empty path.
 */
record FieldPath(String text) {

  static final FieldPath ROOT = new FieldPath("");

  FieldPath field(String name) {
    return new FieldPath(text.isEmpty() ? name : text + "." + name);
  }

  FieldPath index(int i) {
    return new FieldPath(text + "[" + i + "]");
  }

  FieldPath key(String key) {
    return new FieldPath(text + "[\"" + key + "\"]");
  }

  @Override
  public String toString() {
    return text;
  }
}
