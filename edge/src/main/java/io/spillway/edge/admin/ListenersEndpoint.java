package io.spillway.edge.admin;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.admin.v3.ListenerStatus;
import io.envoyproxy.envoy.admin.v3.Listeners;
import io.spillway.edge.listener.Listener;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code /listeners}: each listener's name and the address it is bound to (the actual port when the
 * configuration asked for port 0), as {@code <name>::<ip:port>} lines or, with
 * {@code ?format=json}, as Envoy's {@code envoy.admin.v3.Listeners}. A listener not bound (yet)
 * shows its configured address.
 */
final class ListenersEndpoint implements AdminEndpoint {
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer().preservingProtoFieldNames();

  private final Supplier<List<Listener>> listeners;

  ListenersEndpoint(Supplier<List<Listener>> listeners) {
    this.listeners = listeners;
  }

  @Override
  public String help() {
    return "print listener info; ?format=json";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    String format = request.param("format");
    if (format == null || format.isEmpty() || format.equals("text")) {
      StringBuilder out = new StringBuilder();
      for (Listener l : listeners.get()) {
        out.append(l.config().name()).append("::").append(EnvoyAddresses.text(address(l))).append('\n');
      }
      return AdminResponse.text(200, out.toString());
    }
    if (!format.equals("json")) {
      return AdminResponse.badRequest("invalid format '" + format + "': use text or json");
    }
    Listeners.Builder doc = Listeners.newBuilder();
    for (Listener l : listeners.get()) {
      doc.addListenerStatuses(ListenerStatus.newBuilder()
          .setName(l.config().name())
          .setLocalAddress(EnvoyAddresses.proto(address(l))));
    }
    try {
      return AdminResponse.json(200, PRINTER.print(doc) + "\n");
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print listeners: " + e.getMessage(), e);
    }
  }

  private static InetSocketAddress address(Listener listener) {
    InetSocketAddress bound = listener.localAddress();
    if (bound != null) {
      return bound;
    }
    // Not bound: the configured address, without resolving a name on the admin loop.
    io.spillway.edge.config.SocketAddress configured = listener.config().address();
    return InetSocketAddress.createUnresolved(configured.host(), configured.port());
  }
}
