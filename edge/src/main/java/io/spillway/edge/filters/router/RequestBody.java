package io.spillway.edge.filters.router;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.upstream.UpstreamStream;
import java.util.ArrayList;

/**
 * The request body on its way to the upstream: parts not yet written to the current try, or — while
 * a retry may need them and they fit the buffer limit — every part, so a later try can send them
 * again. Trailers are kept the same way.
 */
final class RequestBody {
  /** Allocated with the first part: most requests have none. */
  private ArrayList<ByteBuf> parts;
  private final long limit;
  private HttpHeaders trailers;
  private boolean complete;
  private boolean replayable;
  private int sentParts;
  private boolean trailersSent;
  private long totalBytes;
  private long unsentBytes;

  RequestBody(boolean replayable, long limit) {
    this.replayable = replayable;
    this.limit = limit;
  }

  void add(ByteBuf part, boolean endStream) {
    if (parts == null) {
      parts = new ArrayList<>(2);
    }
    parts.add(part);
    int size = part.readableBytes();
    totalBytes += size;
    unsentBytes += size;
    complete |= endStream;
    if (replayable && totalBytes > limit) {
      stopKeeping();
    }
  }

  /** The request ended with its headers. */
  void endWithoutBody() {
    complete = true;
  }

  void addTrailers(HttpHeaders t) {
    trailers = t;
    complete = true;
  }

  boolean complete() {
    return complete;
  }

  /** Nothing at all: no part, no trailers, and the request is over. */
  boolean empty() {
    return complete && totalBytes == 0 && (parts == null || parts.isEmpty()) && trailers == null;
  }

  boolean hasContent() {
    return totalBytes > 0 || trailers != null;
  }

  long unsentBytes() {
    return unsentBytes;
  }

  /** Bytes held: not yet written, or kept whole for a retry. */
  long heldBytes() {
    return Math.max(unsentBytes, replayable ? totalBytes : 0);
  }

  /** Whether a new try could send the whole body. */
  boolean replayable() {
    return replayable || (complete && totalBytes == 0);
  }

  /** A new try starts: it is sent everything from the first part. */
  void rewind() {
    sentParts = 0;
    trailersSent = false;
  }

  /** Writes what the try has not had yet; the last part ends the request when it is complete. */
  void writeTo(UpstreamStream stream) {
    int n = parts == null ? 0 : parts.size();
    boolean trailersDue = complete && trailers != null && !trailersSent;
    if (sentParts == n && !trailersDue) {
      return;
    }
    for (int i = sentParts; i < n; i++) {
      ByteBuf part = replayable ? parts.get(i).retainedDuplicate() : parts.get(i);
      stream.writeData(part, complete && trailers == null && i == n - 1);
    }
    if (trailersDue) {
      trailersSent = true;
      stream.writeTrailers(trailers);
    }
    stream.flush();
    if (replayable) {
      sentParts = n;
    } else {
      if (parts != null) {
        parts.clear();
      }
      sentParts = 0;
    }
    unsentBytes = 0;
  }

  /** The body grew past the buffer limit: it can no longer be replayed, so retries end here. */
  private void stopKeeping() {
    replayable = false;
    if (parts == null) {
      return;
    }
    for (int i = 0; i < sentParts; i++) {
      parts.get(i).release();
    }
    parts.subList(0, sentParts).clear();
    sentParts = 0;
  }

  void release() {
    if (parts == null) {
      return;
    }
    for (int i = 0; i < parts.size(); i++) {
      parts.get(i).release();
    }
    parts.clear();
  }
}
