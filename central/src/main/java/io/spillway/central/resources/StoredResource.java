package io.spillway.central.resources;

import java.time.Instant;

/**
 * One row of {@code edge_resources}.
 *
 * @param type the resource type
 * @param target the edge or selector it is assigned to
 * @param name the resource name
 * @param json its canonical JSON, or null once deleted
 * @param revision its revision: 1 when first stored, +1 per change (deletion included)
 * @param changeSeq the value of the change counter that wrote it
 * @param updatedAt when it last changed
 * @param updatedBy who changed it
 */
record StoredResource(ResourceType type, Target target, String name, String json, long revision, long changeSeq,
    Instant updatedAt, String updatedBy) {

  /** Whether it exists (was not deleted). */
  boolean live() {
    return json != null;
  }
}
