package io.spillway.edge.server;

import java.time.Duration;

/**
 * Envoy's hot restart flags: which generation this process is and whom it takes the listening
 * sockets from.
 *
 * @param enabled false with {@code --disable-hot-restart}: no hot restart socket at all
 * @param baseId {@code --base-id}: keeps independent edges on one host apart
 * @param epoch {@code --restart-epoch}: 0 for the first process, N takes over from N-1
 * @param parentShutdownTime {@code --parent-shutdown-time-s}: the parent exits this long after the
 *     child asked it to drain, at the latest
 */
public record HotRestartOptions(boolean enabled, int baseId, int epoch, Duration parentShutdownTime) {

  /**
   * The protocol between generations; two processes hand sockets over only when theirs match.
   * Printed by {@code --hot-restart-version} and {@code GET /hot_restart_version}.
   */
  public static final String VERSION = "spillway.hot_restart.1";

  /** Envoy's default {@code --parent-shutdown-time-s}: 900 s. */
  public static final Duration DEFAULT_PARENT_SHUTDOWN_TIME = Duration.ofSeconds(900);

  /**
   * No hot restart socket: what an edge built in-process (tests, embedding) runs with, so that
   * several can run side by side. The command line enables it unless {@code --disable-hot-restart}.
   */
  public static HotRestartOptions disabled() {
    return new HotRestartOptions(false, 0, 0, DEFAULT_PARENT_SHUTDOWN_TIME);
  }

  /**
   * The Unix domain socket the process of {@code epoch} listens on, in Linux's abstract namespace
   * (the leading NUL; shown as {@code @spillway_hot_restart_<base-id>_<epoch>} by {@code ss -x}):
   * nothing on disk to clean up, gone when the process exits.
   */
  public static String socketName(int baseId, int epoch) {
    return "\0spillway_hot_restart_" + baseId + "_" + epoch;
  }

  /** {@link #socketName} as people read it, with {@code @} for the NUL. */
  public static String printable(String socketName) {
    return socketName.startsWith("\0") ? "@" + socketName.substring(1) : socketName;
  }

  /** This process's own socket. */
  public String ownSocket() {
    return socketName(baseId, epoch);
  }

  /** The parent's socket, for epoch > 0. */
  public String parentSocket() {
    if (epoch == 0) {
      throw new IllegalStateException("epoch 0 has no parent");
    }
    return socketName(baseId, epoch - 1);
  }

  /** Whether this process takes its listening sockets from a parent. */
  public boolean hasParent() {
    return enabled && epoch > 0;
  }

  /**
   * The command-line problem, or null: negative values, and an epoch above 0 where hot restart
   * cannot run (disabled, or a transport other than epoll).
   *
   * @param transport the transport the edge will run on
   */
  String usageProblem(Transport transport) {
    if (baseId < 0) {
      return "--base-id: must be 0 or more, not " + baseId;
    }
    if (epoch < 0) {
      return "--restart-epoch: must be 0 or more, not " + epoch;
    }
    if (parentShutdownTime.isNegative()) {
      return "--parent-shutdown-time-s: must be 0 or more";
    }
    if (epoch > 0 && !enabled) {
      return "--restart-epoch " + epoch + ": hot restart is disabled (--disable-hot-restart)";
    }
    if (epoch > 0 && transport != Transport.EPOLL) {
      return "--restart-epoch " + epoch + ": hot restart needs the epoll transport (Linux), not "
          + transport.name().toLowerCase(java.util.Locale.ROOT) + "; run with --transport epoll or auto";
    }
    return null;
  }
}
