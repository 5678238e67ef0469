package io.spillway.edge.upstream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cluster's {@code max_connections} as its pools on every worker share it. The count itself is
 * the lock-free breaker in {@link ResourceLimits}; this keeps one pool's idle connections from
 * starving another pool's requests, whichever worker or host each is on:
 *
 * <ul>
 *   <li>A pool that cannot open a connection because the budget is spent queues one <em>claim</em>
 *       per connection its waiters still need, and starts one <em>reclaim round</em> (at most one
 *       in flight per pool): the pools that report idle connections — the same host's on other
 *       workers first, then the other hosts' — are visited one after another, each on its own
 *       loop, and each closes idle connections, one per claim still queued. So no more connections
 *       are closed than there are requests waiting for one.
 *   <li>A pool about to park a connection it has no use for closes it instead while a claim is
 *       queued.
 *   <li>The budget a closing connection gives back goes to the pool it was closed for, else to the
 *       oldest claim, by a task posted to that pool's loop; a pool woken with nothing left to
 *       connect passes it on to the next claim.
 * </ul>
 *
 * <p>Nothing here locks or touches a pool from another pool's loop: pools meet only through the
 * claim queue (lock-free), each other's published idle count, and tasks posted to each other's
 * loops.
 */
final class ConnectionBudget {

  /** A pool, as the budget sees it. Every method but {@link #loop()} is called on the pool's loop. */
  interface Member {
    /** The pool's event loop. */
    Executor loop();

    /** How many more connections the pool's waiters need than it is opening; 0 while it drains. */
    int connectionsNeeded();

    /** Budget was given to this pool: open what its waiters need. */
    void connectWaiters();

    /**
     * Closes idle connections for other pools: for each, {@link Seat#nextClaimant()} names the pool
     * it is closed for (none: stop); once the connection has closed, {@link Seat#released} is told
     * that pool.
     */
    void closeIdleForOthers();
  }

  private final ResourceLimits limits;
  /** One entry per connection a pool waits for budget for, oldest first. */
  private final ConcurrentLinkedQueue<Seat> claims = new ConcurrentLinkedQueue<>();
  /** Every pool of the cluster that has not drained. */
  private final ConcurrentLinkedQueue<Seat> seats = new ConcurrentLinkedQueue<>();

  ConnectionBudget(ResourceLimits limits) {
    this.limits = limits;
  }

  /** A seat for a new pool; it takes part once {@link Seat#join()} is called. */
  Seat seat(Member member, Object host) {
    return new Seat(member, host);
  }

  /** One pool's place in the budget. Its fields are the pool's loop's, except the published idle count. */
  final class Seat {
    private final Member member;
    private final Object host;
    /** How many idle connections the pool holds; written on its loop, read by other pools' rounds. */
    private final AtomicInteger idle = new AtomicInteger();
    /** Entries of this seat in the claim queue. */
    private int claimsQueued;
    private boolean reclaiming;

    private Seat(Member member, Object host) {
      this.member = member;
      this.host = host;
    }

    /** The pool is ready: other pools' rounds may visit it. Call on the pool's loop, after it is built. */
    void join() {
      seats.add(this);
    }

    /** The pool drains: no round visits it any more. Its queued claims pass on when woken. */
    void leave() {
      seats.remove(this);
    }

    /** The pool now holds {@code count} idle connections. An ordered store, no fence: a hint for rounds. */
    void idle(int count) {
      idle.lazySet(count);
    }

    /**
     * The budget was spent when the pool tried to open a connection: claims what its waiters
     * still need and starts a reclaim round unless one is under way.
     *
     * @return true when a connection slot was had after all (one was given back meanwhile): the
     *     pool holds it and connects now
     */
    boolean spent() {
      int missing = member.connectionsNeeded() - claimsQueued;
      for (int i = 0; i < missing; i++) {
        claims.add(this);
        claimsQueued++;
      }
      // A connection may have closed between the failed try and the claim, finding no claim.
      if (limits.tryAcquireConnection()) {
        return true;
      }
      if (!reclaiming) {
        startRound();
      }
      return false;
    }

    /**
     * The pool has a connection with nothing to do: the pool it should close it for, taken off
     * the claim queue, or null to keep it. This pool's own claims are dropped on the way (a pool
     * with a connection to spare needs none).
     */
    Seat nextClaimant() {
      Seat next;
      while ((next = claims.poll()) == this) {
        claimsQueued--;
      }
      return next;
    }

    /**
     * A connection of this pool closed and its budget went back to the breaker. {@code closedFor}
     * is the pool it was closed for, or null: then, unless this pool uses the budget itself
     * ({@code usedHere}), the oldest claim is woken.
     */
    void released(Seat closedFor, boolean usedHere) {
      if (closedFor != null) {
        closedFor.wake();
      } else if (!usedHere) {
        Seat next = nextClaimant();
        if (next != null) {
          next.wake();
        }
      }
    }

    /** Tells this pool, on its loop, that budget was freed for one of its claims. */
    private void wake() {
      member.loop().execute(this::budgetFreed);
    }

    private void budgetFreed() {
      claimsQueued--;
      if (member.connectionsNeeded() > 0) {
        member.connectWaiters();
      } else {
        released(null, false); // nothing to connect any more: the next claim gets it
      }
    }

    /** Visits, one after another, the other pools that report idle connections, this host's first. */
    private void startRound() {
      List<Seat> sameHost = new ArrayList<>();
      List<Seat> otherHosts = new ArrayList<>();
      for (Seat s : seats) {
        if (s != this && s.idle.get() > 0) {
          (s.host == host ? sameHost : otherHosts).add(s);
        }
      }
      if (sameHost.isEmpty() && otherHosts.isEmpty()) {
        return; // nothing idle anywhere: the claims wait for a connection to be given back
      }
      sameHost.addAll(otherHosts);
      reclaiming = true;
      visit(sameHost, 0);
    }

    private void visit(List<Seat> round, int next) {
      if (next == round.size() || claims.isEmpty()) {
        member.loop().execute(() -> reclaiming = false);
        return;
      }
      Seat pool = round.get(next);
      pool.member.loop().execute(() -> {
        pool.member.closeIdleForOthers();
        visit(round, next + 1);
      });
    }
  }
}
