package io.spillway.central.xds;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The packaged central ({@code spillway.central.jar}, set by failsafe) as an OS process for the xDS end-to-end tests. */
final class CentralJar implements AutoCloseable {

  private final Process process;
  final int httpPort;
  private final Path log;

  private CentralJar(Process process, int httpPort, Path log) {
    this.process = process;
    this.httpPort = httpPort;
    this.log = log;
  }

  /** Starts central on a data directory (or a database URL among {@code args}) with its xDS server on {@code xdsPort}. */
  static CentralJar start(Path workDir, int xdsPort, List<String> args, Map<String, String> env) throws Exception {
    String jar = System.getProperty("spillway.central.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("run under failsafe (mvn verify), which sets spillway.central.jar; got " + jar);
    }
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.add("-jar");
    command.add(jar);
    command.addAll(args);
    command.addAll(List.of("--http-port", Integer.toString(port), "--xds-port", Integer.toString(xdsPort)));
    Path log = Files.createTempFile(workDir, "central-", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(env);
    CentralJar central = new CentralJar(builder.start(), port, log);
    central.awaitReady(Duration.ofSeconds(60));
    return central;
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  private void awaitReady(Duration timeout) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("central exited with " + process.exitValue() + ":\n" + log());
      }
      try {
        HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("central not ready within " + timeout + ":\n" + log());
  }

  /** SIGKILL. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
