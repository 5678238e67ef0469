package io.spillway.edge.upstream;

import java.util.List;

/**
 * An immutable list of a cluster's hosts, published as one reference.
 *
 * @param lastJoinedNanos when the newest host that joined a running cluster joined (slow start), or
 *     {@link Host#NOT_JOINING} when every host was there from the cluster's first membership
 */
public record HostSet(List<Host> hosts, boolean equalWeights, int totalWeight, long lastJoinedNanos) {

  public static final HostSet EMPTY = new HostSet(List.of(), true, 0, Host.NOT_JOINING);

  public static HostSet of(List<Host> hosts) {
    boolean equal = true;
    int total = 0;
    long lastJoined = Host.NOT_JOINING;
    for (Host h : hosts) {
      total += h.weight();
      equal &= h.weight() == hosts.get(0).weight();
      lastJoined = Math.max(lastJoined, h.joinedNanos());
    }
    return new HostSet(List.copyOf(hosts), equal, total, lastJoined);
  }
}
