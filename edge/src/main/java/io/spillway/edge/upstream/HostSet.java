package io.spillway.edge.upstream;

import java.util.List;

/** An immutable list of a cluster's hosts, published as one reference. */
public record HostSet(List<Host> hosts, boolean equalWeights, int totalWeight) {

  public static final HostSet EMPTY = new HostSet(List.of(), true, 0);

  public static HostSet of(List<Host> hosts) {
    boolean equal = true;
    int total = 0;
    for (Host h : hosts) {
      total += h.weight();
      equal &= h.weight() == hosts.get(0).weight();
    }
    return new HostSet(List.copyOf(hosts), equal, total);
  }
}
