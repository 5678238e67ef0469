package io.spillway.edge.stats;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The names of one stat: Envoy's flat name, its tag-extracted name and its Prometheus identity.
 *
 * @param name the flat dotted name shown by {@code /stats}, e.g. {@code cluster.backend.upstream_rq_total}
 * @param tagExtractedName the flat name without the tagged values, as tagged sinks (DogStatsD) name
 *     the stat, e.g. {@code cluster.upstream_rq_total}
 * @param prometheusName the metric family, e.g. {@code envoy_cluster_upstream_rq_total}
 * @param tags the Prometheus labels in rendering order, e.g. {@code envoy_cluster_name="backend"};
 *     no two share a name
 */
public record StatName(String name, String tagExtractedName, String prometheusName, List<Tag> tags) {

  public StatName {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(tagExtractedName, "tagExtractedName");
    PrometheusNames.requireMetricName(prometheusName);
    tags = List.copyOf(tags);
    Set<String> seen = new HashSet<>();
    for (Tag tag : tags) {
      if (!seen.add(tag.name())) {
        throw new IllegalArgumentException("stat " + name + " carries tag " + tag.name() + " twice");
      }
    }
  }
}
