package io.spillway.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Walks a JSON object field by field along the {@link PolicyField} table. Keys the table does not
 * know are ignored at every level; {@code null} is the same as absent; a value of the wrong JSON
 * type becomes a problem naming its path instead of an exception.
 */
final class PolicyReader {

  /**
   * What was read.
   *
   * @param policy the well-typed fields
   * @param problems type problems, keyed by the field they are reported at (a section that is not
   *     an object is reported once, at its first field)
   * @param unreadable fields whose JSON value was present but could not be read
   */
  record Outcome(OverloadPolicy policy, Map<PolicyField, Problem> problems, Set<PolicyField> unreadable) {}

  private PolicyReader() {}

  static Outcome read(JsonNode root) {
    Map<PolicyField, Object> values = new EnumMap<>(PolicyField.class);
    Map<PolicyField, Problem> problems = new LinkedHashMap<>();
    Set<PolicyField> unreadable = EnumSet.noneOf(PolicyField.class);
    Set<String> objects = new HashSet<>();
    Set<String> notObjects = new HashSet<>();

    for (PolicyField field : PolicyField.values()) {
      JsonNode node = root;
      String at = "";
      boolean reachable = true;
      for (String segment : field.parentPath().split("\\.")) {
        at = at.isEmpty() ? segment : at + "." + segment;
        JsonNode child = node.get(segment);
        if (notObjects.contains(at)) {
          unreadable.add(field);
          reachable = false;
        } else if (child == null || child.isNull()) {
          reachable = false;
        } else if (!child.isObject()) {
          notObjects.add(at);
          problems.put(field, new Problem(at, at + " must be an object"));
          unreadable.add(field);
          reachable = false;
        } else {
          objects.add(at);
          node = child;
        }
        if (!reachable) {
          break;
        }
      }
      JsonNode leaf = reachable ? node.get(field.key()) : null;
      if (leaf == null || leaf.isNull()) {
        continue;
      }
      ValueReader.Read read = ValueReader.fromJson(field, leaf);
      if (read.problem() != null) {
        problems.put(field, new Problem(field.path(), read.problem()));
        unreadable.add(field);
      } else {
        values.put(field, read.value());
      }
    }
    return new Outcome(PolicyAssembler.assemble(values, objects), problems, unreadable);
  }
}
