package io.spillway.central.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.EnumMap;
import java.util.Map;

/**
 * The policy sections of one edge at one moment: every section, set or not, with its revision
 * (0 for a section never set; a deleted section keeps counting).
 *
 * @param sections every {@link Section}
 */
public record PolicyState(Map<Section, Entry> sections) {

  /**
   * One section.
   *
   * @param value the JSON object, or null when not set
   * @param revision how many times it changed
   */
  public record Entry(JsonNode value, long revision) {}

  /** Fills in missing sections as unset at revision 0 and copies the map. */
  public PolicyState {
    Map<Section, Entry> all = new EnumMap<>(Section.class);
    for (Section section : Section.values()) {
      all.put(section, sections.getOrDefault(section, new Entry(null, 0)));
    }
    sections = Map.copyOf(all);
  }

  /** An edge with no sections set. */
  public static PolicyState empty() {
    return new PolicyState(Map.of());
  }

  /** One section. */
  public Entry get(Section section) {
    return sections.get(section);
  }

  /** This state with one section replaced. */
  public PolicyState with(Section section, Entry entry) {
    Map<Section, Entry> copy = new EnumMap<>(sections);
    copy.put(section, entry);
    return new PolicyState(copy);
  }
}
