package io.spillway.testkit;

import java.util.Objects;

/**
 * One header line as it was seen on the wire: the name keeps the case it was received with
 * (HTTP/2 names are always lower case, pseudo-headers such as {@code :authority} included).
 *
 * @param name  the field name
 * @param value the field value
 */
public record HeaderField(String name, String value) {

    public HeaderField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }

    /** Whether this field has the given name, compared case-insensitively. */
    public boolean is(String otherName) {
        return name.equalsIgnoreCase(otherName);
    }

    @Override
    public String toString() {
        return name + ": " + value;
    }
}
