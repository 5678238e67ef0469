package io.spillway.edge.server;

import io.netty.channel.EventLoopGroup;
import io.spillway.edge.admin.AdminContext;
import io.spillway.edge.admin.AdminServer;
import io.spillway.edge.config.SocketAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin listener on its own loop: the bootstrap's {@code admin.address}, else 127.0.0.1:9901.
 * A configured address that cannot be bound fails start-up; the implicit default only logs a
 * warning and the edge runs without one. After a hot restart it binds once the parent has let go
 * of the address.
 */
final class AdminListener {
  private static final Logger log = LoggerFactory.getLogger(AdminListener.class);
  static final SocketAddress DEFAULT_ADDRESS = new SocketAddress("127.0.0.1", 9901);

  private final EventLoopGroup group;
  private volatile AdminServer server;

  private AdminListener(EventLoopGroup group, AdminServer server) {
    this.group = group;
    this.server = server;
  }

  /**
   * Binds the admin listener for {@code context}.
   *
   * @param hotRestart the hot restart state, or null when hot restart is off
   */
  static AdminListener start(AdminContext context, Optional<SocketAddress> configured, HotRestart hotRestart)
      throws InterruptedException {
    AdminListener admin = new AdminListener(Transport.NIO.newGroup(1, "spillway-admin"), new AdminServer(context));
    if (configured.isPresent()) {
      admin.bind(configured.get(), hotRestart);
    } else {
      try {
        admin.bind(DEFAULT_ADDRESS, hotRestart);
      } catch (Exception e) {
        log.warn("no admin listener: the default {} cannot be bound ({}); set admin.address", DEFAULT_ADDRESS,
            e.toString());
        admin.server = null;
        return admin;
      }
    }
    log.info("admin listener on {}", admin.localAddress());
    return admin;
  }

  private void bind(SocketAddress address, HotRestart hotRestart) throws InterruptedException {
    if (hotRestart == null) {
      server.bind(group, address);
    } else {
      hotRestart.bindAfterParent(() -> server.bind(group, address));
    }
  }

  /** The bound address, or null without one. */
  InetSocketAddress localAddress() {
    AdminServer s = server;
    return s == null ? null : s.localAddress();
  }

  /** Stops listening (a hot restart's child binds its own); the loop stays until {@link #shutdown}. */
  void close() {
    AdminServer s = server;
    if (s != null) {
      s.close();
    }
  }

  /** Closes the listener and stops its loop. */
  void shutdown() {
    close();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
