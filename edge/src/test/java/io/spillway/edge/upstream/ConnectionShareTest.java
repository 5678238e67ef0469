package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ResourceLimits.Slot;
import org.junit.jupiter.api.Test;

/**
 * The fair-share rule on a cluster's request and pending budgets: a downstream connection holding
 * n slots gets another only while more than n are free.
 */
class ConnectionShareTest {

  private static ResourceLimits requests(int maxRequests) {
    return new ResourceLimits(new ClusterConfig.Thresholds(1024, 1024, maxRequests, 3));
  }

  /** Takes request slots for one connection until refused; returns how many it got. */
  private static int takeAll(ResourceLimits limits, int[] held) {
    int taken = 0;
    while (limits.tryAcquireRequest(held[0]) == Slot.TAKEN) {
      held[0]++;
      taken++;
    }
    return taken;
  }

  @Test
  void aLoneConnectionTakesHalfTheBudgetRoundedUpAndNeverLessThanOne() {
    assertThat(takeAll(requests(20), new int[1])).isEqualTo(10);
    assertThat(takeAll(requests(21), new int[1])).isEqualTo(11);
    assertThat(takeAll(requests(2), new int[1])).isEqualTo(1);
    assertThat(takeAll(requests(1), new int[1])).isEqualTo(1);
    assertThat(takeAll(requests(1024), new int[1])).isEqualTo(512);
  }

  @Test
  void whatIsRefusedPastTheShareIsTheShareNotTheBreaker() {
    ResourceLimits limits = requests(20);
    int[] greedy = new int[1];
    takeAll(limits, greedy);

    assertThat(limits.tryAcquireRequest(greedy[0])).isEqualTo(Slot.OVER_SHARE);
    assertThat(limits.requests()).isEqualTo(10);
  }

  @Test
  void othersStillGetSlotsAndTheSmallestHoldersFillTheBudget() {
    ResourceLimits limits = requests(20);
    assertThat(takeAll(limits, new int[1])).as("first").isEqualTo(10);
    assertThat(takeAll(limits, new int[1])).as("second: 10 + 2n < 20").isEqualTo(5);
    assertThat(takeAll(limits, new int[1])).as("third").isEqualTo(3);
    assertThat(takeAll(limits, new int[1])).as("fourth").isEqualTo(1);
    assertThat(takeAll(limits, new int[1])).as("fifth").isEqualTo(1);
    assertThat(limits.requests()).isEqualTo(20);
    assertThat(limits.tryAcquireRequest(0)).as("a connection holding nothing meets the breaker").isEqualTo(Slot.FULL);
  }

  @Test
  void slotsGivenBackAreTakenAgain() {
    ResourceLimits limits = requests(20);
    int[] greedy = new int[1];
    takeAll(limits, greedy);
    limits.releaseRequest();
    greedy[0]--;

    assertThat(limits.tryAcquireRequest(greedy[0])).isEqualTo(Slot.TAKEN);
  }

  @Test
  void pendingSlotsFollowTheSameRule() {
    ResourceLimits limits = new ResourceLimits(new ClusterConfig.Thresholds(1024, 6, 1024, 3));
    int held = 0;
    while (limits.tryAcquirePending(held) == Slot.TAKEN) {
      held++;
    }
    assertThat(held).isEqualTo(3);
    assertThat(limits.tryAcquirePending(0)).isEqualTo(Slot.TAKEN);
  }

  @Test
  void aConnectionHoldsEachClusterSeparately() {
    Cluster a = cluster("a");
    Cluster b = cluster("b");
    ConnectionShare share = new ConnectionShare();

    ConnectionShare.Holding ofA = share.of(a);
    ofA.requests = 7;
    ConnectionShare.Holding ofB = share.of(b);

    assertThat(ofB).isNotSameAs(ofA);
    assertThat(ofB.requests).isZero();
    assertThat(share.of(a)).isSameAs(ofA);
    assertThat(share.of(a).requests).isEqualTo(7);
  }

  @Test
  void anEntryThatHoldsNothingIsReusedForAnotherCluster() {
    Cluster a = cluster("a");
    Cluster b = cluster("b");
    Cluster c = cluster("c");
    ConnectionShare share = new ConnectionShare();
    ConnectionShare.Holding ofA = share.of(a);
    ofA.requests = 1;
    ConnectionShare.Holding ofB = share.of(b);
    ofB.pending = 1;
    assertThat(ofB).isNotSameAs(ofA);
    ofA.requests = 0; // a's request ended

    ConnectionShare.Holding ofC = share.of(c);

    assertThat(ofC).as("a's entry holds nothing").isSameAs(ofA);
    assertThat(share.of(b)).isSameAs(ofB);
    assertThat(share.of(b).pending).isEqualTo(1);
  }

  @Test
  void aHoldingTakesAndGivesBackItsClustersSlots() {
    Cluster a = cluster("a");
    Cluster b = cluster("b");
    ConnectionShare share = new ConnectionShare();
    ConnectionShare.Holding ofA = share.of(a);
    for (int i = 0; i < 512; i++) {
      assertThat(ofA.takeRequest()).isEqualTo(Slot.TAKEN);
    }
    assertThat(ofA.takeRequest()).isEqualTo(Slot.OVER_SHARE);
    assertThat(share.of(b).takeRequest()).as("its share of another cluster is whole").isEqualTo(Slot.TAKEN);

    ofA.releaseRequest();
    assertThat(a.limits().requests()).isEqualTo(511);
    assertThat(ofA.takeRequest()).isEqualTo(Slot.TAKEN);
    assertThat(ofA.takePending()).isEqualTo(Slot.TAKEN);
    ofA.releasePending();
    assertThat(a.limits().pending()).isZero();
    assertThat(ofA.pending).isZero();
  }

  private static Cluster cluster(String name) {
    ClusterConfig config = LoadBalancerTest.config(ClusterConfig.LbPolicy.ROUND_ROBIN);
    return Cluster.create(config, new ClusterStats(new StatsStore().rootScope().scope(name), false), 1, 1L,
        ConnectionGate.OPEN);
  }
}
