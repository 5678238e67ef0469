package io.spillway.edge.filters.decompressor;

/**
 * How much one body may decode to (the decompression-bomb check). Envoy stops a call to
 * {@code decompress} whose output passes {@code ratio} times that call's input; on its own that
 * refuses legitimate bodies sent in tiny parts (one byte of a back-reference decodes to hundreds)
 * and lets a bomb through that comes a few bytes at a time. So two rules hold here, both at
 * {@code ratio}: a part's output is at most {@code ratio} times the larger of its size and
 * {@link #FLOOR} (what one part may cost in memory), and the body's output so far is at most
 * {@code ratio} times the larger of its input so far and {@link #FLOOR}.
 */
final class InflateBound {
  /** Parts and bodies smaller than this count as this large: 1 KiB. */
  static final long FLOOR = 1024;

  private final long ratio;
  private long bodyIn;
  private long bodyOut;
  private long partLimit;

  InflateBound(long ratio) {
    this.ratio = ratio;
  }

  /** A part of {@code size} bytes begins; returns how many bytes it may decode to. */
  long startPart(int size) {
    bodyIn += size;
    long part = ratio * Math.max(size, FLOOR);
    long body = ratio * Math.max(bodyIn, FLOOR) - bodyOut;
    partLimit = Math.max(0, Math.min(part, body));
    return partLimit;
  }

  /** The part decoded to {@code out} bytes: false when that passes its limit. */
  boolean allows(long out) {
    return out <= partLimit;
  }

  /** The part is done, having decoded to {@code out} bytes. */
  void endPart(long out) {
    bodyOut += out;
  }
}
