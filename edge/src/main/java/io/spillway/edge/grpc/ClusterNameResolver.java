package io.spillway.edge.grpc;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.HostSet;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The addresses of one cluster's routable hosts (its published {@link Cluster.Routing}: the healthy
 * ones, or all in panic) as a gRPC name resolution, so a channel spreads its calls over them with
 * {@code round_robin}. The cluster is looked up by name on each resolution (CDS may replace it); a
 * change of its hosts (DNS, EDS, health) reaches the channel within {@link #REFRESH_MILLIS}, and
 * at once when gRPC asks again after a connection failure.
 */
final class ClusterNameResolver extends NameResolver {

  static final String SCHEME = "spillway-cluster";
  static final long REFRESH_MILLIS = 1000;

  private final ClusterManager clusters;
  private final String cluster;
  private final String authority;
  private final SynchronizationContext sync;
  private final ScheduledExecutorService timer;
  private Listener2 listener;
  private HostSet published;
  private ScheduledFuture<?> refreshes;

  private ClusterNameResolver(ClusterManager clusters, String cluster, String authority, Args args) {
    this.clusters = clusters;
    this.cluster = cluster;
    this.authority = authority;
    this.sync = args.getSynchronizationContext();
    this.timer = args.getScheduledExecutorService();
  }

  /** The resolver factory of one channel: whatever the target says, it resolves {@code cluster}. */
  static NameResolverProvider provider(ClusterManager clusters, String cluster, String authority) {
    return new NameResolverProvider() {
      @Override
      public NameResolver newNameResolver(URI targetUri, Args args) {
        return SCHEME.equals(targetUri.getScheme()) ? new ClusterNameResolver(clusters, cluster, authority, args) : null;
      }

      @Override
      public String getDefaultScheme() {
        return SCHEME;
      }

      @Override
      protected boolean isAvailable() {
        return true;
      }

      @Override
      protected int priority() {
        return 5;
      }

      @Override
      public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
        return Set.of(java.net.InetSocketAddress.class);
      }
    };
  }

  @Override
  public String getServiceAuthority() {
    return authority;
  }

  @Override
  public void start(Listener2 listener) {
    this.listener = listener;
    publish(true);
    refreshes = timer.scheduleWithFixedDelay(() -> sync.execute(() -> publish(false)), REFRESH_MILLIS,
        REFRESH_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void refresh() {
    publish(true);
  }

  @Override
  public void shutdown() {
    if (refreshes != null) {
      refreshes.cancel(false);
    }
    listener = null;
  }

  /** Tells the channel the cluster's hosts: when they changed, or always when {@code force}. */
  private void publish(boolean force) {
    if (listener == null) {
      return;
    }
    Cluster c = clusters.get(cluster);
    HostSet hosts = c == null ? HostSet.EMPTY : c.routing().hosts();
    if (!force && hosts == published) {
      return;
    }
    published = hosts;
    if (hosts.hosts().isEmpty()) {
      listener.onError(Status.UNAVAILABLE.withDescription(c == null
          ? "no cluster " + cluster : "no healthy host in cluster " + cluster));
      return;
    }
    List<EquivalentAddressGroup> addresses = new ArrayList<>(hosts.hosts().size());
    for (Host h : hosts.hosts()) {
      addresses.add(new EquivalentAddressGroup(h.address()));
    }
    listener.onResult(ResolutionResult.newBuilder().setAddresses(addresses).build());
  }
}
