package io.spillway.edge.upstream.lb;

import java.util.List;

/**
 * Envoy's Maglev: a table of {@code tableSize} (a prime) slots filled round by round, each host
 * walking its own permutation ({@code offset = xxHash64(key) mod M}, {@code skip = xxHash64(key,
 * seed 1) mod (M - 1) + 1}) to the next free slot; a host of normalized weight {@code w} takes a
 * turn in round {@code r} only while {@code r * w} has reached the weight it has been credited
 * (its credit grows by the largest normalized weight per turn), so slots are shared in proportion
 * to weight. A request's hash picks slot {@code hash mod M}.
 */
public final class MaglevTable implements HashTable {
  public static final int DEFAULT_TABLE_SIZE = 65537;

  /** The host index of each slot; empty without hosts. */
  private final int[] slots;

  private MaglevTable(int[] slots) {
    this.slots = slots;
  }

  public static MaglevTable build(List<Member> members, int tableSize) {
    if (members.isEmpty()) {
      return new MaglevTable(new int[0]);
    }
    int n = members.size();
    long sum = 0;
    for (Member m : members) {
      sum += m.weight();
    }
    long[] offset = new long[n];
    long[] skip = new long[n];
    long[] next = new long[n];
    double[] weight = new double[n];
    double[] target = new double[n];
    double max = 0;
    for (int i = 0; i < n; i++) {
      String key = members.get(i).key();
      offset[i] = Long.remainderUnsigned(XxHash64.hash(key, 0), tableSize);
      skip[i] = Long.remainderUnsigned(XxHash64.hash(key, 1), tableSize - 1) + 1;
      weight[i] = members.get(i).weight() * 1.0 / sum;
      max = Math.max(max, weight[i]);
    }
    int[] slots = new int[tableSize];
    java.util.Arrays.fill(slots, -1);
    int filled = 0;
    for (long round = 1; filled < tableSize; round++) {
      for (int i = 0; i < n && filled < tableSize; i++) {
        if (round * weight[i] < target[i]) {
          continue;
        }
        target[i] += max;
        int c = (int) ((offset[i] + skip[i] * next[i]) % tableSize);
        while (slots[c] >= 0) {
          next[i]++;
          c = (int) ((offset[i] + skip[i] * next[i]) % tableSize);
        }
        slots[c] = i;
        next[i]++;
        filled++;
      }
    }
    return new MaglevTable(slots);
  }

  @Override
  public int pick(long hash, int attempt) {
    if (slots.length == 0) {
      return -1;
    }
    long h = attempt > 0 ? hash ^ (-1L - attempt + 1) : hash; // Envoy's retry: flip most bits
    return slots[(int) Long.remainderUnsigned(h, slots.length)];
  }
}
