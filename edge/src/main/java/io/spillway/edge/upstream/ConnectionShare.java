package io.spillway.edge.upstream;

/**
 * What one downstream connection holds of the clusters' request budgets: for each cluster its
 * requests use, how many request slots ({@code max_requests}) and pending slots
 * ({@code max_pending_requests}) they hold now. The fair-share rule of {@link ResourceLimits}
 * reads it, so that one client cannot take a cluster's whole budget. It also keeps the budgets
 * that belong to the connection alone, such as the local rate limit's per-connection token buckets
 * ({@link #ownBudget}). One per downstream connection (an HTTP/2 connection's streams share it);
 * used on that connection's worker loop only.
 */
public final class ConnectionShare {
  private Holding[] holdings = new Holding[1];
  private int size;
  /** Owner, budget, owner, budget...: a filter's budget of this connection alone. */
  private Object[] ownBudgets;

  /**
   * The connection's own budget kept for {@code owner} (a filter's configuration, compared by
   * identity), created by {@code create} the first time; it lives as long as the connection.
   */
  @SuppressWarnings("unchecked")
  public <T> T ownBudget(Object owner, java.util.function.Supplier<? extends T> create) {
    Object[] budgets = ownBudgets;
    if (budgets != null) {
      for (int i = 0; i < budgets.length; i += 2) {
        if (budgets[i] == owner) {
          return (T) budgets[i + 1];
        }
      }
    }
    T budget = create.get();
    int at = budgets == null ? 0 : budgets.length;
    budgets = budgets == null ? new Object[2] : java.util.Arrays.copyOf(budgets, at + 2);
    budgets[at] = owner;
    budgets[at + 1] = budget;
    ownBudgets = budgets;
    return budget;
  }

  /** What the connection holds of one cluster; its slots are taken and given back through it. */
  static final class Holding {
    private Cluster cluster;
    int requests;
    int pending;

    private Holding(Cluster cluster) {
      this.cluster = cluster;
    }

    /** One of the cluster's request slots, within the connection's share. */
    ResourceLimits.Slot takeRequest() {
      ResourceLimits.Slot slot = cluster.limits().tryAcquireRequest(requests);
      if (slot == ResourceLimits.Slot.TAKEN) {
        requests++;
      }
      return slot;
    }

    void releaseRequest() {
      requests--;
      cluster.limits().releaseRequest();
    }

    /** One of the cluster's pending slots, within the connection's share. */
    ResourceLimits.Slot takePending() {
      ResourceLimits.Slot slot = cluster.limits().tryAcquirePending(pending);
      if (slot == ResourceLimits.Slot.TAKEN) {
        pending++;
      }
      return slot;
    }

    void releasePending() {
      pending--;
      cluster.limits().releasePending();
    }
  }

  /**
   * The connection's holding of {@code cluster}: found by a scan of the few clusters it uses, an
   * entry that holds nothing any more reused for another cluster.
   */
  Holding of(Cluster cluster) {
    Holding unused = null;
    for (int i = 0; i < size; i++) {
      Holding h = holdings[i];
      if (h.cluster == cluster) {
        return h;
      }
      if (unused == null && h.requests == 0 && h.pending == 0) {
        unused = h;
      }
    }
    if (unused != null) {
      unused.cluster = cluster;
      return unused;
    }
    if (size == holdings.length) {
      holdings = java.util.Arrays.copyOf(holdings, size * 2);
    }
    Holding h = new Holding(cluster);
    holdings[size++] = h;
    return h;
  }

}
