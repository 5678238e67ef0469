package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class HashTablesTest {
  private static final int KEYS = 20_000;

  private static List<HashTable.Member> hosts(int n, int weight) {
    List<HashTable.Member> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      members.add(new HashTable.Member("10.0.0." + (i + 1) + ":8080", weight));
    }
    return members;
  }

  private static int[] counts(HashTable table, int hosts) {
    int[] counts = new int[hosts];
    for (int k = 0; k < KEYS; k++) {
      counts[table.pick(XxHash64.hash("user-" + k), 0)]++;
    }
    return counts;
  }

  private static Function<List<HashTable.Member>, HashTable> ring() {
    return m -> RingHashTable.build(m, 1024, 8L * 1024 * 1024);
  }

  private static Function<List<HashTable.Member>, HashTable> maglev() {
    return m -> MaglevTable.build(m, MaglevTable.DEFAULT_TABLE_SIZE);
  }

  @Test
  void ringSpreadsKeysEvenly() {
    spreadsEvenly(ring(), 0.25);
  }

  @Test
  void maglevSpreadsKeysEvenly() {
    spreadsEvenly(maglev(), 0.05);
  }

  private static void spreadsEvenly(Function<List<HashTable.Member>, HashTable> build, double tolerance) {
    int[] counts = counts(build.apply(hosts(5, 1)), 5);
    for (int c : counts) {
      assertThat(c).isBetween((int) (KEYS / 5 * (1 - tolerance)), (int) (KEYS / 5 * (1 + tolerance)));
    }
  }

  @Test
  void ringRespectsWeights() {
    respectsWeights(ring(), 0.25);
  }

  @Test
  void maglevRespectsWeights() {
    respectsWeights(maglev(), 0.05);
  }

  private static void respectsWeights(Function<List<HashTable.Member>, HashTable> build, double tolerance) {
    List<HashTable.Member> members = List.of(new HashTable.Member("10.0.0.1:80", 1),
        new HashTable.Member("10.0.0.2:80", 1), new HashTable.Member("10.0.0.3:80", 2));
    int[] counts = counts(build.apply(members), 3);
    assertThat(counts[2]).isBetween((int) (KEYS / 2 * (1 - tolerance)), (int) (KEYS / 2 * (1 + tolerance)));
  }

  /**
   * The ring keeps about {@code minimum_ring_size} points, so when one of 5 hosts leaves the other
   * four each get more points (205 to 256) and take some keys from one another: about 1/N of the
   * keys move with the removed host, and the new points move some more, far fewer than a rehash
   * over 4 hosts (4/5 of the keys).
   */
  @Test
  void ringMovesLittleMoreThanOneNthWhenAHostLeaves() {
    int[] moved = movedWhenAHostLeaves(ring());
    assertThat(moved[0]).isBetween((int) (KEYS / 5 * 0.7), (int) (KEYS / 5 * 1.75));
  }

  @Test
  void maglevMovesAboutOneNthWhenAHostLeaves() {
    int[] moved = movedWhenAHostLeaves(maglev());
    assertThat(moved[0]).isBetween((int) (KEYS / 5 * 0.9), (int) (KEYS / 5 * 1.1 + KEYS * 0.02));
    assertThat(moved[1]).isLessThan(KEYS / 50); // a few slots change hands between staying hosts
  }

  /** Removing one of 5 hosts: {keys that moved, keys that moved although their host stayed}. */
  private static int[] movedWhenAHostLeaves(Function<List<HashTable.Member>, HashTable> build) {
    List<HashTable.Member> all = hosts(5, 1);
    List<HashTable.Member> fewer = new ArrayList<>(all);
    HashTable.Member gone = fewer.remove(2);
    HashTable before = build.apply(all);
    HashTable after = build.apply(fewer);
    int moved = 0;
    int movedFromStaying = 0;
    for (int k = 0; k < KEYS; k++) {
      long h = XxHash64.hash("user-" + k);
      String was = all.get(before.pick(h, 0)).key();
      String now = fewer.get(after.pick(h, 0)).key();
      if (!was.equals(now)) {
        moved++;
        if (!was.equals(gone.key())) {
          movedFromStaying++;
        }
      }
    }
    return new int[] {moved, movedFromStaying};
  }

  @Test
  void sameKeySameHostAcrossRebuilds() {
    for (var build : List.of(ring(), maglev())) {
      HashTable a = build.apply(hosts(4, 1));
      HashTable b = build.apply(hosts(4, 1));
      for (int k = 0; k < 1000; k++) {
        long h = XxHash64.hash("session-" + k);
        assertThat(b.pick(h, 0)).isEqualTo(a.pick(h, 0));
      }
    }
  }

  @Test
  void ringSizeFollowsTheBounds() {
    assertThat(RingHashTable.build(hosts(3, 1), 1024, 8L * 1024 * 1024).size()).isBetween(1024, 1026);
    assertThat(RingHashTable.build(hosts(3, 1), 1024, 300).size()).isBetween(300, 301);
    // Weights 1 and 3: the light host gets a whole number of points, the ring at least the minimum.
    List<HashTable.Member> uneven = List.of(new HashTable.Member("a:1", 1), new HashTable.Member("b:1", 3));
    assertThat(RingHashTable.build(uneven, 10, 1000).size()).isEqualTo(12); // ceil(0.25 * 10) / 0.25
  }

  @Test
  void ringPicksTheFirstPointAtOrAboveTheHashAndWraps() {
    RingHashTable t = RingHashTable.build(List.of(new HashTable.Member("a:1", 1), new HashTable.Member("b:1", 1)),
        2, 2);
    long a = XxHash64.hash("a:1_0");
    long b = XxHash64.hash("b:1_0");
    assertThat(t.pick(a, 0)).isEqualTo(0);
    assertThat(t.pick(b, 0)).isEqualTo(1);
    long lower = Long.compareUnsigned(a, b) < 0 ? a : b;
    long upper = lower == a ? b : a;
    int lowerHost = lower == a ? 0 : 1;
    assertThat(t.pick(upper + 1 == 0 ? upper : upper + 1, 0)).isEqualTo(lowerHost); // wraps
    assertThat(t.pick(lower + 1, 0)).isEqualTo(1 - lowerHost);
    assertThat(t.pick(a, 1)).isEqualTo(1); // a retry attempt moves one point on
  }

  @Test
  void emptyTablesPickNothing() {
    assertThat(RingHashTable.build(List.of(), 1024, 2048).pick(1, 0)).isEqualTo(-1);
    assertThat(MaglevTable.build(List.of(), 65537).pick(1, 0)).isEqualTo(-1);
  }

  @Test
  void maglevRetryMovesToAnotherSlot() {
    MaglevTable t = MaglevTable.build(hosts(3, 1), 65537);
    int differ = 0;
    for (int k = 0; k < 300; k++) {
      long h = XxHash64.hash("k" + k);
      if (t.pick(h, 1) != t.pick(h, 0)) {
        differ++;
      }
    }
    assertThat(differ).isGreaterThan(100);
  }
}
