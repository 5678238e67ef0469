package io.spillway.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports on 127.0.0.1 for configurations written before a process starts (the edge's
 * listener and admin ports in a bootstrap file). The port is free when picked; another process may
 * take it before it is used, so in-process servers should bind port 0 themselves instead.
 */
public final class FreePorts {

    private FreePorts() {}

    /** One port that was free on 127.0.0.1 a moment ago. */
    public static int pick() {
        return pick(1)[0];
    }

    /** {@code count} distinct ports that were free on 127.0.0.1 a moment ago (held together while picked). */
    public static int[] pick(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, got " + count);
        }
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket();
                sockets[i].setReuseAddress(false);
                sockets[i].bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0));
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        } finally {
            for (ServerSocket socket : sockets) {
                closeQuietly(socket);
            }
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // the port is released either way
        }
    }
}
