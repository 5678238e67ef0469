package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;

/**
 * Runs one direction of a stream through its filters (Envoy's filter manager, one direction): the
 * headers, then body parts, then trailers, filter by filter, stopping where a filter asks and
 * resuming from the next one when it continues. Subclasses say how a filter is called and where a
 * part goes after the last filter.
 *
 * <p>The rules, as in Envoy for {@code StopIteration}:
 * <ul>
 *   <li>One filter at a time may hold iteration ({@link #pos}). Parts that arrive while it holds
 *       pass every filter before it and then reach it; what it answers for the last part it got
 *       decides whether iteration moves on.</li>
 *   <li>Data it stops on is kept in the chain's buffer (a composite of the parts, no copy); past
 *       the limit {@link #overLimit} (buffer) or {@link #watermark} (watermark) is called.</li>
 *   <li>{@link #resume} from the next filter delivers, to each filter in turn, what it has not seen:
 *       the headers, the buffered data as one part, the trailers.</li>
 *   <li>A filter that rewrites the body ({@link #inject}) takes each part (answering
 *       {@link FilterDataStatus#STOP_ITERATION_NO_BUFFER}) and passes on what it made instead, as
 *       though it had answered {@link FilterDataStatus#CONTINUE} with that part; from its trailers
 *       callback, what it injects goes on ahead of the trailers (Envoy's {@code addEncodedData}).</li>
 * </ul>
 * Used on the stream's worker loop only; re-entrant calls (a filter continuing inside its own
 * callback) are folded into the running iteration.
 *
 * @param <H> the head type: request or response headers
 */
abstract class FilterIteration<H> {

  private final int count;
  /** The filter holding iteration; {@link #count} once everything passed all filters. */
  private int pos;
  /** How many filters have been given the headers. */
  private int headersTo;
  private H headers;
  /** The direction's end arrived (end of stream on headers or data, or trailers). */
  private boolean complete;
  private CompositeByteBuf buffered;
  private HttpHeaders trailers;
  private boolean trailersPending;
  private boolean watermarked;
  private boolean headersSunk;
  /** Depth of filter calls on the stack, and a continue asked for from inside one of them. */
  private int calling;
  private boolean continueAsked;
  /** What the filter being called passes on in place of the part it took, or ahead of the trailers. */
  private ByteBuf injected;

  FilterIteration(int count) {
    this.count = count;
    this.pos = 0;
  }

  // ---- what a direction supplies -------------------------------------------------------------

  abstract FilterHeadersStatus callHeaders(int index, H headers, boolean endStream);

  abstract FilterDataStatus callData(int index, ByteBuf data, boolean endStream);

  abstract FilterTrailersStatus callTrailers(int index, HttpHeaders trailers);

  /** After the last filter. */
  abstract void sinkHeaders(H headers, boolean endStream);

  abstract void sinkData(ByteBuf data, boolean endStream);

  abstract void sinkTrailers(HttpHeaders trailers);

  /** Whether this direction is over (a local reply, a reset, the stream's end): nothing more is delivered. */
  abstract boolean ended();

  abstract long bufferLimit();

  /** The buffer passed its limit for a filter that stops with buffering. */
  abstract void overLimit();

  /** The buffer passed its limit (true) or drained (false) for a filter that stops with watermark. */
  abstract void watermark(boolean above);

  abstract CompositeByteBuf newBuffer();

  // ---- arrivals ------------------------------------------------------------------------------

  final void headers(H h, boolean endStream) {
    headers = h;
    complete = endStream;
    resume(0);
  }

  final void data(ByteBuf data, boolean endStream) {
    if (endStream) {
      complete = true;
    }
    if (ended()) {
      data.release();
      return;
    }
    deliver(0, data, endStream);
  }

  /** A part on its way, from filter {@code from} on (at most up to the holder). */
  private void deliver(int from, ByteBuf data, boolean endStream) {
    int stop = Math.min(pos, headersTo);
    for (int i = from; i < stop; i++) {
      // Filters before the holder have passed everything so far.
      calling++;
      FilterDataStatus s;
      try {
        s = callData(i, data, endStream);
      } finally {
        calling--;
      }
      ByteBuf replacement = takeInjected(s);
      if (ended()) {
        releaseIfOurs(data, s);
        releaseIfAny(replacement);
        return;
      }
      if (replacement != null) {
        data = replacement;
        s = FilterDataStatus.CONTINUE;
      }
      if (s == FilterDataStatus.CONTINUE) {
        continue;
      }
      if (s == FilterDataStatus.STOP_ITERATION_NO_BUFFER) {
        return;
      }
      pos = i;
      buffer(data, s);
      return;
    }
    if (pos >= count) {
      sinkData(data, endStream);
      return;
    }
    if (headersTo <= pos) {
      buffer(data, FilterDataStatus.STOP_ITERATION_AND_BUFFER); // headers not even there yet
      return;
    }
    // The holder sees the new part; the chain keeps it unless the holder takes it.
    boolean endHere = endStream && !trailersPending;
    calling++;
    continueAsked = false;
    FilterDataStatus s;
    try {
      s = callData(pos, data, endHere);
    } finally {
      calling--;
    }
    ByteBuf replacement = takeInjected(s);
    if (ended()) {
      releaseIfOurs(data, s);
      releaseIfAny(replacement);
      return;
    }
    if (replacement != null) {
      data = replacement;
      s = FilterDataStatus.CONTINUE;
    }
    if (s == FilterDataStatus.STOP_ITERATION_NO_BUFFER) {
      if (continueAsked) {
        continueAsked = false;
        resume(pos + 1);
      }
      return;
    }
    buffer(data, s);
    if (s == FilterDataStatus.CONTINUE || consumeContinue()) {
      resume(pos + 1);
    }
  }

  final void trailers(HttpHeaders t) {
    complete = true;
    trailers = t;
    trailersPending = true;
    if (ended()) {
      return;
    }
    int stop = Math.min(pos, headersTo);
    for (int i = 0; i < stop; i++) {
      if (buffered != null) {
        break; // the holder still has data to pass: trailers wait behind it
      }
      calling++;
      FilterTrailersStatus s;
      try {
        s = callTrailers(i, t);
      } finally {
        calling--;
      }
      ByteBuf ahead = takeInjected();
      if (ended()) {
        releaseIfAny(ahead);
        return;
      }
      if (s == FilterTrailersStatus.STOP_ITERATION) {
        pos = i;
        if (ahead != null) {
          buffer(ahead, FilterDataStatus.CONTINUE);
        }
        return;
      }
      if (ahead != null) {
        deliver(i + 1, ahead, false);
        if (ended()) {
          return;
        }
      }
    }
    if (pos >= count) {
      trailersPending = false;
      sinkTrailers(t);
      return;
    }
    if (headersTo <= pos) {
      return;
    }
    calling++;
    continueAsked = false;
    FilterTrailersStatus s;
    try {
      s = callTrailers(pos, t);
    } finally {
      calling--;
    }
    ByteBuf ahead = takeInjected();
    if (ended()) {
      releaseIfAny(ahead);
      return;
    }
    if (ahead != null) {
      buffer(ahead, FilterDataStatus.CONTINUE);
    }
    if (s == FilterTrailersStatus.CONTINUE || consumeContinue()) {
      resume(pos + 1);
    }
  }

  /** The holding filter continues: iteration goes on from the filter after it. */
  final void continueIteration() {
    if (calling > 0) {
      continueAsked = true; // inside a filter call: the running iteration moves on when it returns
      return;
    }
    if (pos < count) {
      resume(pos + 1);
    }
  }

  /**
   * Called by the filter being called: from its data callback, the part that goes on in place of the
   * one it took (it answers {@link FilterDataStatus#STOP_ITERATION_NO_BUFFER}); from its trailers
   * callback, a part that goes on ahead of the trailers. Takes ownership of {@code data}.
   */
  final void inject(ByteBuf data) {
    if (calling == 0) {
      data.release();
      throw new IllegalStateException("data may only be injected from a filter's data or trailers callback");
    }
    if (injected == null) {
      injected = data;
    } else {
      CompositeByteBuf joined = injected instanceof CompositeByteBuf c ? c : newBuffer().addComponent(true, injected);
      injected = joined.addComponent(true, data);
    }
  }

  /** Bytes held in the chain's buffer. */
  final long bufferedBytes() {
    return buffered == null ? 0 : buffered.readableBytes();
  }

  /** Gives back the buffer; the direction is over. */
  final void release() {
    if (buffered != null) {
      buffered.release();
      buffered = null;
    }
    releaseIfAny(takeInjected());
  }

  // ---- iteration -----------------------------------------------------------------------------

  private void resume(int from) {
    for (int i = from; i < count; i++) {
      pos = i;
      boolean proceed = true;
      if (headersTo <= i) {
        headersTo = i + 1;
        calling++;
        continueAsked = false;
        FilterHeadersStatus s;
        try {
          s = callHeaders(i, headers, complete && buffered == null && !trailersPending);
        } finally {
          calling--;
        }
        if (ended()) {
          return;
        }
        proceed = s == FilterHeadersStatus.CONTINUE || consumeContinue();
      }
      if (buffered != null) {
        CompositeByteBuf data = buffered;
        buffered = null;
        calling++;
        continueAsked = false;
        FilterDataStatus s;
        try {
          s = callData(i, data, complete && !trailersPending);
        } finally {
          calling--;
        }
        ByteBuf replacement = takeInjected(s);
        if (ended()) {
          releaseIfOurs(data, s);
          releaseIfAny(replacement);
          return;
        }
        if (replacement != null) {
          data = replacement instanceof CompositeByteBuf c ? c : newBuffer().addComponent(true, replacement);
          s = FilterDataStatus.CONTINUE;
        }
        switch (s) {
          case CONTINUE -> {
            buffered = data;
            proceed = true;
          }
          case STOP_ITERATION_NO_BUFFER -> {
            proceed = consumeContinue();
            drained();
          }
          default -> {
            buffered = data;
            checkLimit(s);
            proceed = consumeContinue();
          }
        }
      }
      if (trailersPending && (buffered == null || proceed)) {
        calling++;
        continueAsked = false;
        FilterTrailersStatus s;
        try {
          s = callTrailers(i, trailers);
        } finally {
          calling--;
        }
        ByteBuf ahead = takeInjected();
        if (ended()) {
          releaseIfAny(ahead);
          return;
        }
        if (ahead != null) {
          buffer(ahead, FilterDataStatus.CONTINUE);
        }
        proceed = s == FilterTrailersStatus.CONTINUE || consumeContinue();
      }
      if (!proceed) {
        return;
      }
    }
    pos = count;
    if (!headersSunk) {
      headersSunk = true;
      sinkHeaders(headers, complete && buffered == null && !trailersPending);
      if (ended()) {
        return;
      }
    }
    if (buffered != null) {
      CompositeByteBuf data = buffered;
      buffered = null;
      drained();
      sinkData(data, complete && !trailersPending);
      if (ended()) {
        return;
      }
    }
    if (trailersPending) {
      trailersPending = false;
      sinkTrailers(trailers);
    }
  }

  private ByteBuf takeInjected() {
    ByteBuf b = injected;
    injected = null;
    return b;
  }

  /** What a data callback injected; only a filter that took the part may replace it. */
  private ByteBuf takeInjected(FilterDataStatus status) {
    ByteBuf b = takeInjected();
    if (b != null && status != FilterDataStatus.STOP_ITERATION_NO_BUFFER) {
      b.release();
      throw new IllegalStateException("a filter that injects data in place of a part must take the part"
          + " (STOP_ITERATION_NO_BUFFER), not answer " + status);
    }
    return b;
  }

  private static void releaseIfAny(ByteBuf b) {
    if (b != null && b.refCnt() > 0) {
      b.release();
    }
  }

  private boolean consumeContinue() {
    boolean asked = continueAsked;
    continueAsked = false;
    return asked;
  }

  private void buffer(ByteBuf data, FilterDataStatus status) {
    if (buffered == null) {
      buffered = newBuffer();
    }
    buffered.addComponent(true, data);
    if (status != FilterDataStatus.CONTINUE) {
      checkLimit(status);
    }
  }

  private void checkLimit(FilterDataStatus status) {
    if (buffered == null || buffered.readableBytes() <= bufferLimit()) {
      return;
    }
    if (status == FilterDataStatus.STOP_ITERATION_AND_WATERMARK) {
      if (!watermarked) {
        watermarked = true;
        watermark(true);
      }
    } else {
      overLimit();
    }
  }

  private void drained() {
    if (watermarked) {
      watermarked = false;
      watermark(false);
    }
  }

  private static void releaseIfOurs(ByteBuf data, FilterDataStatus status) {
    if (status != FilterDataStatus.STOP_ITERATION_NO_BUFFER && data.refCnt() > 0) {
      data.release();
    }
  }
}
