package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class FreePortsIT {

    @Test
    void aPickedPortCanBeBound() throws Exception {
        int port = FreePorts.pick();

        assertThat(port).isBetween(1, 65535);
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void severalPickedPortsAreDistinct() {
        int[] ports = FreePorts.pick(4);

        assertThat(ports).hasSize(4).doesNotHaveDuplicates();
    }
}
