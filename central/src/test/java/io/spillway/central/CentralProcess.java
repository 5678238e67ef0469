package io.spillway.central;

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

/**
 * The packaged central ({@code spillway.central.jar}, set by failsafe) as an OS process, for
 * the end-to-end tests; standard error (the log) and standard output go to separate files.
 */
public final class CentralProcess implements AutoCloseable {

  static final String JAR_PROPERTY = "spillway.central.jar";

  private final Process process;
  private final int port;
  private final Path log;
  private final Path stdout;

  private CentralProcess(Process process, int port, Path log, Path stdout) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.stdout = stdout;
  }

  /**
   * Starts central with these arguments and environment and waits for {@code /readyz}; the HTTP
   * port is picked here, the xDS port is {@code --xds-port} among the arguments or any free one.
   */
  public static CentralProcess start(Path workDir, List<String> args, Map<String, String> env) throws Exception {
    String jarProperty = System.getProperty(JAR_PROPERTY);
    if (jarProperty == null || !Files.isRegularFile(Path.of(jarProperty))) {
      throw new IllegalStateException("run under failsafe (mvn verify), which sets " + JAR_PROPERTY + " to the packaged jar; got " + jarProperty);
    }
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.add("-jar");
    command.add(jarProperty);
    command.addAll(args);
    command.add("--http-port");
    command.add(Integer.toString(port));
    if (!args.contains("--xds-port")) {
      command.add("--xds-port");
      command.add("0"); // never the default 18000: tests run side by side
    }
    Path log = Files.createTempFile(workDir, "central-", ".log");
    Path stdout = Files.createTempFile(workDir, "central-", ".out");
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile()).redirectOutput(stdout.toFile());
    builder.environment().putAll(env);
    CentralProcess central = new CentralProcess(builder.start(), port, log, stdout);
    central.awaitReady(Duration.ofSeconds(60));
    return central;
  }

  public int port() {
    return port;
  }

  /** What central logged (standard error). */
  public String log() throws IOException {
    return Files.readString(log);
  }

  /** What central printed on standard output (only ever the first-start token). */
  String stdout() throws IOException {
    return Files.readString(stdout);
  }

  private void awaitReady(Duration timeout) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("central exited with " + process.exitValue() + ":\n" + log() + stdout());
      }
      try {
        HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("central not ready within " + timeout + ":\n" + log());
  }

  /** SIGKILL: no shutdown hook runs. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM and wait; answers the exit code. */
  int stop() throws InterruptedException {
    process.destroy();
    return process.waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
