package io.spillway.testkit;

import java.util.concurrent.CountDownLatch;

/**
 * The demo's sample backend: an {@link OriginServer} on 127.0.0.1 as its own process, until it
 * is stopped. {@code --port N} (default: any free port, printed) and {@code --name NAME}.
 */
public final class SampleBackend {
    private SampleBackend() {}

    public static void main(String[] args) throws InterruptedException {
        int port = 0;
        String name = "backend";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--name" -> name = args[++i];
                default -> {
                    System.err.println("usage: SampleBackend [--port N] [--name NAME]");
                    System.exit(2);
                }
            }
        }
        OriginServer server = OriginServer.builder().name(name).port(port).ioThreads(1).start();
        System.out.println(name + " listening on 127.0.0.1:" + server.port());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stop.countDown();
        }));
        stop.await();
    }
}
