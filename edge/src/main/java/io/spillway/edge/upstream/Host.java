package io.spillway.edge.upstream;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import io.spillway.edge.stats.StripedLong;

/**
 * One upstream endpoint. Shared by all workers; the counters are atomics (no locks). Each worker
 * keeps its own connection pool for the host in {@link #pool(int)}.
 */
public final class Host {
  private final String clusterName;
  private final InetSocketAddress address;
  private final String hostname;
  private final int weight;
  private final HostPool[] pools;
  private final AtomicInteger activeRequests = new AtomicInteger();
  final StripedLong rqTotal = new StripedLong();
  final StripedLong rqSuccess = new StripedLong();
  final StripedLong rqError = new StripedLong();
  final StripedLong rqTimeout = new StripedLong();
  final StripedLong cxTotal = new StripedLong();
  final StripedLong cxConnectFail = new StripedLong();
  final AtomicInteger cxActive = new AtomicInteger();

  Host(String clusterName, InetSocketAddress address, String hostname, int weight, int workers) {
    this.clusterName = clusterName;
    this.address = address;
    this.hostname = hostname;
    this.weight = weight;
    this.pools = new HostPool[workers];
  }

  public String clusterName() {
    return clusterName;
  }

  /** The resolved address connections go to. */
  public InetSocketAddress address() {
    return address;
  }

  /** The configured name (a DNS name for STRICT_DNS clusters, the IP otherwise). */
  public String hostname() {
    return hostname;
  }

  public int weight() {
    return weight;
  }

  /** "ip:port", as Envoy prints upstream hosts. */
  public String addressString() {
    return address.getAddress().getHostAddress() + ":" + address.getPort();
  }

  public int activeRequests() {
    return activeRequests.get();
  }

  public void requestStarted() {
    activeRequests.incrementAndGet();
    rqTotal.add(1);
  }

  public void requestFinished(boolean success) {
    activeRequests.decrementAndGet();
    (success ? rqSuccess : rqError).add(1);
  }

  /** A request to this host timed out (route or per-try timeout). */
  public void requestTimedOut() {
    rqTimeout.add(1);
  }

  /** This worker's pool for the host, or null before the worker first used it. */
  HostPool pool(int worker) {
    return pools[worker];
  }

  void setPool(int worker, HostPool pool) {
    pools[worker] = pool;
  }

  /** Closes every worker's pool (the host left the cluster); each pool closes on its own loop. */
  void drainPools() {
    for (HostPool p : pools) {
      if (p != null) {
        p.drain();
      }
    }
  }

  /** Per-host counters for the admin /clusters page. */
  public HostCounters counters() {
    return new HostCounters(rqTotal.sum(), rqSuccess.sum(), rqError.sum(), rqTimeout.sum(),
        activeRequests.get(), cxTotal.sum(), cxConnectFail.sum(), cxActive.get());
  }

  /** A consistent-enough read of a host's counters. */
  public record HostCounters(long rqTotal, long rqSuccess, long rqError, long rqTimeout, int rqActive,
      long cxTotal, long cxConnectFail, int cxActive) {}

  @Override
  public String toString() {
    return clusterName + "/" + addressString();
  }
}
