package io.spillway.edge.upstream.lb;

/**
 * A consistent-hashing table of a host set (ring hash or Maglev): built once on the control side
 * when the hosts change, immutable afterwards, read by every worker.
 */
public sealed interface HashTable permits RingHashTable, MaglevTable {

  /**
   * The index (into the host list the table was built from) of the host for {@code hash}; {@code
   * attempt} above 0 moves to another place as Envoy's host-selection retries do. -1 when the
   * table has no host.
   */
  int pick(long hash, int attempt);

  /** Hosts' keys and weights, in the host set's order; a key is what Envoy hashes (the address, {@code ip:port}). */
  record Member(String key, int weight) {
    public Member {
      if (weight < 1) {
        throw new IllegalArgumentException("weight must be at least 1");
      }
    }
  }
}
