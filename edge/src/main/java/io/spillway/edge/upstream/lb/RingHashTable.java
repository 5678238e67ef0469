package io.spillway.edge.upstream.lb;

import java.util.List;

/**
 * Envoy's ring hash (Ketama): each host puts {@code scale * normalized weight} points on a ring of
 * 64-bit hashes, point {@code i} at {@code xxHash64("<key>_<i>")}, with {@code scale} chosen so the
 * lightest host gets a whole number of points and the ring has at least {@code minimumRingSize}
 * and at most {@code maximumRingSize} entries. A request's hash goes to the first point at or
 * above it, wrapping to the first.
 */
public final class RingHashTable implements HashTable {
  /** Point hashes, ascending as unsigned numbers. */
  private final long[] hashes;
  /** The host index of each point. */
  private final int[] hosts;

  private RingHashTable(long[] hashes, int[] hosts) {
    this.hashes = hashes;
    this.hosts = hosts;
  }

  public static RingHashTable build(List<Member> members, long minimumRingSize, long maximumRingSize) {
    if (members.isEmpty()) {
      return new RingHashTable(new long[0], new int[0]);
    }
    long sum = 0;
    for (Member m : members) {
      sum += m.weight();
    }
    double[] normalized = new double[members.size()];
    double min = 1.0;
    for (int i = 0; i < normalized.length; i++) {
      normalized[i] = members.get(i).weight() * 1.0 / sum;
      min = Math.min(min, normalized[i]);
    }
    double scale = Math.min(Math.ceil(min * minimumRingSize) / min, (double) maximumRingSize);
    int size = (int) Math.ceil(scale);
    long[] hashes = new long[size + members.size()];
    int[] hosts = new int[hashes.length];
    int n = 0;
    double current = 0;
    double target = 0;
    for (int h = 0; h < normalized.length; h++) {
      String prefix = members.get(h).key() + "_";
      target += scale * normalized[h];
      for (long i = 0; current < target; i++, current++) {
        hashes[n] = XxHash64.hash(prefix + i);
        hosts[n] = h;
        n++;
      }
    }
    long[] sortedHashes = java.util.Arrays.copyOf(hashes, n);
    int[] sortedHosts = java.util.Arrays.copyOf(hosts, n);
    sortUnsigned(sortedHashes, sortedHosts);
    return new RingHashTable(sortedHashes, sortedHosts);
  }

  /** How many points the ring has. */
  public int size() {
    return hashes.length;
  }

  @Override
  public int pick(long hash, int attempt) {
    int n = hashes.length;
    if (n == 0) {
      return -1;
    }
    int lo = 0;
    int hi = n;
    while (lo < hi) { // the first point whose hash is >= the request's (unsigned)
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(hashes[mid], hash) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    int at = lo == n ? 0 : lo;
    if (attempt > 0) {
      at = (int) ((at + (long) attempt) % n);
    }
    return hosts[at];
  }

  /** Sorts the points by unsigned hash, carrying their host indices (merge sort on parallel arrays). */
  private static void sortUnsigned(long[] keys, int[] values) {
    int n = keys.length;
    long[] k2 = new long[n];
    int[] v2 = new int[n];
    long[] srcK = keys;
    int[] srcV = values;
    long[] dstK = k2;
    int[] dstV = v2;
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int i = lo;
        int j = mid;
        for (int k = lo; k < hi; k++) {
          if (i < mid && (j >= hi || Long.compareUnsigned(srcK[i], srcK[j]) <= 0)) {
            dstK[k] = srcK[i];
            dstV[k] = srcV[i++];
          } else {
            dstK[k] = srcK[j];
            dstV[k] = srcV[j++];
          }
        }
      }
      long[] tk = srcK;
      srcK = dstK;
      dstK = tk;
      int[] tv = srcV;
      srcV = dstV;
      dstV = tv;
    }
    if (srcK != keys) {
      System.arraycopy(srcK, 0, keys, 0, n);
      System.arraycopy(srcV, 0, values, 0, n);
    }
  }
}
