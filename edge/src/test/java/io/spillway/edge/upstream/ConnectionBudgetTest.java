package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The cluster's connection budget shared between pools, with fake pools on hand-driven loops: who
 * is asked to close idle connections, how many, and who gets the budget they give back.
 */
class ConnectionBudgetTest {

  private static final Object HOST_A = "host-a";
  private static final Object HOST_B = "host-b";

  private final List<FakeLoop> loops = new ArrayList<>();

  /** A worker's loop: tasks run only when the test drains the loops. */
  private final class FakeLoop implements Executor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    FakeLoop() {
      loops.add(this);
    }

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }
  }

  /** Runs every loop's tasks, round after round, until none is left; returns how many ran. */
  private int runLoops() {
    int ran = 0;
    boolean any = true;
    while (any) {
      any = false;
      for (FakeLoop loop : loops) {
        Runnable task = loop.tasks.poll();
        if (task != null) {
          task.run();
          ran++;
          any = true;
        }
      }
    }
    return ran;
  }

  /**
   * A pool: {@code waiting} requests, {@code idle} parked connections, and the connections it
   * holds of the budget. Connecting takes a slot at once; closing gives it back in a later task of
   * its loop, as a channel's close does.
   */
  private final class FakePool implements ConnectionBudget.Member {
    final FakeLoop loop;
    final ConnectionBudget.Seat seat;
    final ResourceLimits limits;
    int waiting;
    int connecting;
    int idle;
    int closedForOthers;
    int connected;
    final List<String> events = new ArrayList<>();
    final String name;

    FakePool(String name, ConnectionBudget budget, ResourceLimits limits, FakeLoop loop, Object host) {
      this.name = name;
      this.loop = loop;
      this.limits = limits;
      this.seat = budget.seat(this, host);
      seat.join();
    }

    /** Opens {@code n} connections and parks them (the pool had requests a moment ago). */
    FakePool withIdle(int n) {
      for (int i = 0; i < n; i++) {
        assertThat(limits.tryAcquireConnection()).isTrue();
      }
      idle += n;
      seat.idle(idle);
      return this;
    }

    /** A request arrives: an idle connection serves it, else it waits and the pool tries to connect. */
    void request() {
      if (idle > 0) {
        idle--;
        seat.idle(idle);
        return;
      }
      waiting++;
      connect();
    }

    private void connect() {
      if (limits.tryAcquireConnection() || seat.spent()) {
        waiting--;
        connected++;
      }
    }

    @Override
    public Executor loop() {
      return loop;
    }

    @Override
    public int connectionsNeeded() {
      return waiting - connecting;
    }

    @Override
    public void connectWaiters() {
      events.add("woken");
      connect();
    }

    @Override
    public void closeIdleForOthers() {
      events.add("asked");
      while (idle > 0) {
        ConnectionBudget.Seat claimant = seat.nextClaimant();
        if (claimant == null) {
          break;
        }
        idle--;
        seat.idle(idle);
        closedForOthers++;
        loop.execute(() -> { // the channel closes later on its loop
          limits.releaseConnection();
          seat.released(claimant, false);
        });
      }
    }
  }

  private static ResourceLimits limits(int maxConnections) {
    return new ResourceLimits(new ClusterConfig.Thresholds(maxConnections, 1024, 1024, 3));
  }

  @Test
  void idleConnectionsOnAnotherWorkerAreClosedForAPoolThatWaitsForBudget() {
    ResourceLimits limits = limits(4);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool full = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A).withIdle(4);
    FakePool starved = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);

    starved.request();
    starved.request();
    assertThat(starved.waiting).isEqualTo(2);

    runLoops();

    assertThat(full.closedForOthers).as("as many as wait, no more").isEqualTo(2);
    assertThat(full.idle).isEqualTo(2);
    assertThat(starved.waiting).isZero();
    assertThat(starved.connected).isEqualTo(2);
    assertThat(starved.events).containsExactly("woken", "woken");
    assertThat(full.events).containsExactly("asked");
    assertThat(limits.connections()).isEqualTo(4);
  }

  @Test
  void oneRoundAtATimePerPool() {
    ResourceLimits limits = limits(3);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool full = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A).withIdle(3);
    FakePool starved = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);

    starved.request();
    starved.request();
    starved.request(); // round under way: only a claim more

    runLoops();

    assertThat(full.events).as("one round, which served all three claims").containsExactly("asked");
    assertThat(full.closedForOthers).isEqualTo(3);
    assertThat(starved.connected).isEqualTo(3);
  }

  @Test
  void theSameHostIsAskedFirstThenOtherHosts() {
    ResourceLimits limits = limits(3);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool otherHost = new FakePool("worker0/b", budget, limits, new FakeLoop(), HOST_B).withIdle(2);
    FakePool sameHost = new FakePool("worker0/a", budget, limits, new FakeLoop(), HOST_A).withIdle(1);
    FakePool starved = new FakePool("worker1/a", budget, limits, new FakeLoop(), HOST_A);

    starved.request();
    runLoops();
    assertThat(sameHost.closedForOthers).isEqualTo(1);
    assertThat(otherHost.events).as("the round ended once no claim was left").isEmpty();

    starved.request();
    runLoops();
    assertThat(otherHost.closedForOthers).as("no idle connection of this host is left").isEqualTo(1);
    assertThat(otherHost.idle).isEqualTo(1);
    assertThat(starved.connected).isEqualTo(2);
    assertThat(starved.waiting).isZero();
  }

  @Test
  void noRoundWhenNoPoolHasAnIdleConnection() {
    ResourceLimits limits = limits(1);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool busy = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A);
    FakePool starved = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);
    busy.request(); // holds the only connection, busy

    starved.request();
    assertThat(runLoops()).isZero();
    assertThat(starved.waiting).isEqualTo(1);

    // The busy connection finishes and has nothing more to do: it is closed for the claim.
    ConnectionBudget.Seat claimant = busy.seat.nextClaimant();
    assertThat(claimant).isSameAs(starved.seat);
    limits.releaseConnection();
    busy.seat.released(claimant, false);
    runLoops();
    assertThat(starved.connected).isEqualTo(1);
    assertThat(starved.waiting).isZero();
  }

  @Test
  void budgetGivenBackWithoutAClaimantGoesToTheOldestClaim() {
    ResourceLimits limits = limits(1);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool holder = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A);
    FakePool first = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);
    FakePool second = new FakePool("worker2", budget, limits, new FakeLoop(), HOST_B);
    holder.request();
    first.request();
    second.request();

    // The holder's connection is closed by the upstream: not for anyone, and the holder needs none.
    limits.releaseConnection();
    holder.seat.released(null, false);
    runLoops();

    assertThat(first.connected).isEqualTo(1);
    assertThat(second.connected).isZero();
    assertThat(second.waiting).isEqualTo(1);
  }

  @Test
  void aPoolWokenWithNothingToConnectPassesTheBudgetOn() {
    ResourceLimits limits = limits(1);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool holder = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A);
    FakePool gaveUp = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);
    FakePool waits = new FakePool("worker2", budget, limits, new FakeLoop(), HOST_A);
    holder.request();
    gaveUp.request();
    waits.request();
    gaveUp.waiting = 0; // its request went away (timeout, client gone)

    limits.releaseConnection();
    holder.seat.released(null, false);
    runLoops();

    assertThat(gaveUp.connected).isZero();
    assertThat(waits.connected).isEqualTo(1);
  }

  @Test
  void aPoolsOwnClaimsAreNotClaimantsOfItsSpareConnections() {
    ResourceLimits limits = limits(1);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool holder = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A);
    FakePool other = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);
    holder.request();
    other.request();
    holder.request(); // a claim of its own
    holder.waiting = 0;

    assertThat(holder.seat.nextClaimant()).as("its own claim is dropped, the other pool's is next")
        .isSameAs(other.seat);
  }

  @Test
  void spentSaysSoWhenBudgetCameBackMeanwhile() {
    ResourceLimits limits = limits(1);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool pool = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A);
    pool.waiting = 1;

    assertThat(pool.seat.spent()).as("the slot was free: taken").isTrue();
    assertThat(limits.connections()).isEqualTo(1);
    assertThat(pool.seat.spent()).isFalse();
  }

  @Test
  void aDrainedPoolIsNotAsked() {
    ResourceLimits limits = limits(2);
    ConnectionBudget budget = new ConnectionBudget(limits);
    FakePool drained = new FakePool("worker0", budget, limits, new FakeLoop(), HOST_A).withIdle(2);
    FakePool starved = new FakePool("worker1", budget, limits, new FakeLoop(), HOST_A);
    drained.seat.leave();

    starved.request();
    runLoops();

    assertThat(drained.events).isEmpty();
    assertThat(starved.waiting).isEqualTo(1);
  }
}
