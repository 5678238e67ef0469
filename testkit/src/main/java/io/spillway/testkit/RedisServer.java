package io.spillway.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis server of a test's own, as an OS process on 127.0.0.1 and a free port, keeping nothing on
 * disk: for tests that stop, stall or restart Redis, which the machine's shared one at 6379 must
 * never be. Needs Debian's {@code redis-server} on the PATH ({@link #available()}).
 */
public final class RedisServer implements AutoCloseable {

  private static final Duration READY = Duration.ofSeconds(10);

  private final int port;
  private final Path dir;
  private Process process;

  private RedisServer(int port, Path dir) {
    this.port = port;
    this.dir = dir;
  }

  /** Whether {@code redis-server} can be run here. */
  public static boolean available() {
    try {
      Process p = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Starts one on a free port, its log under {@code dir}, and waits until it answers PING. */
  public static RedisServer start(Path dir) throws IOException {
    RedisServer server = new RedisServer(FreePorts.pick(), Files.createDirectories(dir));
    server.startProcess();
    return server;
  }

  /** Its port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:<port>}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** Kills the process (SIGKILL: no goodbye to its clients) and waits for it to go. */
  public void kill() {
    if (process != null && process.isAlive()) {
      try {
        resume(); // a paused process would linger until continued
      } catch (IOException e) {
        // it goes anyway
      }
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Stops the process without ending it (SIGSTOP): connections stay open and nothing is answered until {@link #resume}. */
  public void pause() throws IOException {
    signal("-STOP");
  }

  /** Lets a paused process go on (SIGCONT). */
  public void resume() throws IOException {
    signal("-CONT");
  }

  private void signal(String signal) throws IOException {
    try {
      Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).redirectErrorStream(true).start();
      kill.getInputStream().readAllBytes();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IOException("kill " + signal + " " + process.pid() + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Starts it again on the same port, empty. */
  public void restart() throws IOException {
    kill();
    startProcess();
  }

  private void startProcess() throws IOException {
    process = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString()))
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.out").toFile()).start();
    long deadline = System.nanoTime() + READY.toNanos();
    while (!RedisRequired.answers(port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        kill();
        throw new IOException("redis-server on port " + port + " did not answer PING within " + READY + "; see "
            + dir.resolve("redis.log"));
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for redis-server", e);
      }
    }
  }

  @Override
  public void close() {
    kill();
  }
}
