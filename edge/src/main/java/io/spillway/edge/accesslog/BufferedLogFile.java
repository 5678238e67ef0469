package io.spillway.edge.accesslog;

import io.netty.util.internal.PlatformDependent;
import io.spillway.edge.stats.Counter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One access log file (or stdout/stderr) with its own bounded buffer and flush thread, as Envoy's
 * {@code AccessLogFileImpl}. Workers hand lines over through a lock-free bounded multi-producer
 * queue and never touch the file; the flush thread writes what is queued every flush interval, or
 * as soon as the queued bytes reach the flush size. When the buffer is full (the disk does not keep
 * up) a line is dropped and counted. {@link #reopen()} (logrotate) closes and reopens the path
 * before the next write.
 */
final class BufferedLogFile implements LogSink, AutoCloseable {

  /** Flush and buffer limits of every file. */
  record Limits(long flushIntervalNanos, long flushBytes, long maxBufferedBytes, int maxLines) {}

  /** Envoy's {@code filesystem.*} counters, shared by every file, plus the edge's drop count. */
  record Stats(Counter writeBuffered, Counter writeCompleted, Counter flushedByTimer, Counter writeFailed,
      Counter reopenFailed, Counter writeDropped) {}

  private final String name;
  private final Path path; // null for stdout / stderr
  private final FileDescriptor stream;
  private final Limits limits;
  private final Stats stats;
  private final Queue<String> queue;
  private final AtomicLong bufferedBytes = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean reopenRequested;
  private volatile boolean retiring;
  private volatile long retireAtNanos;
  private WritableByteChannel channel; // flush thread only

  private BufferedLogFile(String name, Path path, FileDescriptor stream, Limits limits, Stats stats) {
    this.name = name;
    this.path = path;
    this.stream = stream;
    this.limits = limits;
    this.stats = stats;
    this.queue = PlatformDependent.newFixedMpscQueue(limits.maxLines());
    this.thread = new Thread(this::run, "spillway-accesslog:" + name);
    thread.setDaemon(true);
  }

  /**
   * A file, created when absent and appended to; opened now so an unwritable path fails at load.
   *
   * @throws IllegalArgumentException naming the path when it cannot be opened
   */
  static BufferedLogFile open(String path, Limits limits, Stats stats) {
    BufferedLogFile f;
    try {
      f = new BufferedLogFile(path, Path.of(path), null, limits, stats);
      f.channel = f.openChannel();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("access log " + path + " cannot be opened: " + e, e);
    }
    f.thread.start();
    return f;
  }

  /**
   * {@link #open}, creating the missing parent directories first.
   *
   * @throws IllegalArgumentException naming the path when it cannot be opened
   */
  static BufferedLogFile openCreatingDirectories(String path, Limits limits, Stats stats) {
    try {
      Path parent = Path.of(path).getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("access log " + path + " cannot be opened: " + e, e);
    }
    return open(path, limits, stats);
  }

  static BufferedLogFile stdout(Limits limits, Stats stats) {
    return stream("stdout", FileDescriptor.out, limits, stats);
  }

  static BufferedLogFile stderr(Limits limits, Stats stats) {
    return stream("stderr", FileDescriptor.err, limits, stats);
  }

  private static BufferedLogFile stream(String name, FileDescriptor fd, Limits limits, Stats stats) {
    BufferedLogFile f = new BufferedLogFile(name, null, fd, limits, stats);
    f.channel = new FileOutputStream(fd).getChannel();
    f.thread.start();
    return f;
  }

  String name() {
    return name;
  }

  /** Whether the flush thread still runs. */
  boolean isRunning() {
    return thread.isAlive();
  }

  /** Bytes queued and not yet written. */
  long bufferedBytes() {
    return bufferedBytes.get();
  }

  @Override
  public void write(String line) {
    long size = line.length(); // chars: the byte count of ASCII lines, a bound for the buffer's purposes
    // The bytes are reserved before the line is queued, so the flush thread never subtracts a line
    // that was not counted yet and the count never goes below what is really queued.
    long after = bufferedBytes.addAndGet(size);
    if (after > limits.maxBufferedBytes() || !queue.offer(line)) {
      bufferedBytes.addAndGet(-size);
      stats.writeDropped().inc();
      return;
    }
    stats.writeBuffered().inc();
    if (after >= limits.flushBytes() && after - size < limits.flushBytes()) {
      LockSupport.unpark(thread);
    }
  }

  /** Closes and reopens the file before the next write (logrotate); nothing for stdout and stderr. */
  void reopen() {
    if (path != null) {
      reopenRequested = true;
      LockSupport.unpark(thread);
    }
  }

  /**
   * Stops after {@code graceNanos} without waiting: lines handed over until then (by a worker that
   * read the logger just before it was replaced) are still written, then the file is closed.
   */
  void closeAfter(long graceNanos) {
    retireAtNanos = System.nanoTime() + graceNanos;
    retiring = true;
    LockSupport.unpark(thread);
  }

  /** Writes what is queued and stops the flush thread. */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(thread);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private WritableByteChannel openChannel() throws IOException {
    return FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
  }

  private void run() {
    ByteBuffer bytes = ByteBuffer.allocate(64 * 1024);
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder();
    long lastFlush = System.nanoTime();
    while (running) {
      long wait = lastFlush + limits.flushIntervalNanos() - System.nanoTime();
      if (retiring) {
        long left = retireAtNanos - System.nanoTime();
        if (left <= 0) {
          break;
        }
        wait = Math.min(wait, left);
      }
      if (wait > 0) {
        LockSupport.parkNanos(this, wait);
      }
      long now = System.nanoTime();
      boolean byTimer = now - lastFlush >= limits.flushIntervalNanos();
      if (reopenRequested) {
        reopenRequested = false;
        doReopen();
      }
      if (byTimer || bufferedBytes.get() >= limits.flushBytes()) {
        lastFlush = now;
        if (drain(bytes, encoder) && byTimer) {
          stats.flushedByTimer().inc();
        }
      }
    }
    if (reopenRequested) {
      doReopen();
    }
    drain(bytes, encoder);
    if (path != null && channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        stats.writeFailed().inc();
      }
    }
  }

  private void doReopen() {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      // the old file is gone either way
    }
    try {
      channel = openChannel();
    } catch (IOException e) {
      channel = null;
      stats.reopenFailed().inc();
    }
  }

  /** Writes every queued line; true when something was written. */
  private boolean drain(ByteBuffer bytes, CharsetEncoder encoder) {
    boolean wrote = false;
    String line;
    bytes.clear();
    while ((line = queue.poll()) != null) {
      bufferedBytes.addAndGet(-line.length());
      CharBuffer chars = CharBuffer.wrap(line);
      encoder.reset();
      while (true) {
        CoderResult r = encoder.encode(chars, bytes, true);
        if (r.isOverflow()) {
          wrote |= writeOut(bytes);
          continue;
        }
        encoder.flush(bytes);
        break;
      }
    }
    if (bytes.position() > 0) {
      wrote |= writeOut(bytes);
    }
    return wrote;
  }

  private boolean writeOut(ByteBuffer bytes) {
    bytes.flip();
    try {
      if (channel == null) {
        if (path == null) {
          channel = new FileOutputStream(stream).getChannel();
        } else {
          channel = openChannel();
        }
      }
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      stats.writeCompleted().inc();
      return true;
    } catch (IOException e) {
      stats.writeFailed().inc();
      return false;
    } finally {
      bytes.clear();
    }
  }
}
