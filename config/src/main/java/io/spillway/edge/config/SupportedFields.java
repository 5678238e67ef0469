package io.spillway.edge.config;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import java.util.Map;
import java.util.Set;

/**
 * The fields of one proto message type that the translator understands. Every other field that is
 * set (a present singular message, a non-default scalar, a non-empty list or map, any member of a
 * oneof that is chosen) is rejected with its full path: {@code <path>.<field>: <field> is not
 * supported}. Fields planned for a later issue say {@code is not supported yet}; some of those are
 * tolerated while empty. Field names are checked against the descriptor when the set is built, so
 * a misspelt name fails fast instead of silently rejecting or admitting a field.
 */
final class SupportedFields {

  private final Descriptor type;
  private final Set<String> supported;
  private final Set<String> later;
  private final Set<String> laterUnlessEmpty;

  private SupportedFields(Descriptor type, Set<String> supported, Set<String> later, Set<String> laterUnlessEmpty) {
    this.type = type;
    this.supported = supported;
    this.later = later;
    this.laterUnlessEmpty = laterUnlessEmpty;
    for (Set<String> names : java.util.List.of(supported, later, laterUnlessEmpty)) {
      for (String name : names) {
        if (type.findFieldByName(name) == null) {
          throw new IllegalStateException(type.getFullName() + " has no field " + name);
        }
      }
    }
  }

  /** The supported fields of {@code type}; every other field is rejected when set. */
  static SupportedFields of(Descriptor type, String... supported) {
    return new SupportedFields(type, Set.of(supported), Set.of(), Set.of());
  }

  /** Also names fields that a later issue implements: rejected as "not supported yet". */
  SupportedFields later(String... names) {
    return new SupportedFields(type, supported, Set.of(names), laterUnlessEmpty);
  }

  /** Also names message fields a later issue implements that are tolerated (and ignored) while empty. */
  SupportedFields laterUnlessEmpty(String... names) {
    return new SupportedFields(type, supported, later, Set.of(names));
  }

  /** Rejects the first set field that is not supported, in declaration order. */
  void check(MessageOrBuilder message, FieldPath path) throws ConfigException {
    if (message.getDescriptorForType() != type) {
      throw new IllegalArgumentException("expected " + type.getFullName() + ", got "
          + message.getDescriptorForType().getFullName());
    }
    Map<FieldDescriptor, Object> set = message.getAllFields();
    if (set.isEmpty()) {
      return;
    }
    for (FieldDescriptor field : type.getFields()) {
      if (!set.containsKey(field) || supported.contains(field.getName())) {
        continue;
      }
      String name = field.getName();
      if (laterUnlessEmpty.contains(name) && isEmpty(set.get(field))) {
        continue;
      }
      boolean yet = later.contains(name) || laterUnlessEmpty.contains(name);
      throw new ConfigException(path.field(name), name + " is not supported" + (yet ? " yet" : ""));
    }
  }

  private static boolean isEmpty(Object value) {
    if (value instanceof Message m) {
      return m.getAllFields().isEmpty();
    }
    return value instanceof java.util.List<?> list && list.isEmpty();
  }
}
