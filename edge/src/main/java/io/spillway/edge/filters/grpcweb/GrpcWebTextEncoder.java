package io.spillway.edge.filters.grpcweb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A gRPC response body (length-prefixed frames: one flag byte, a 4-byte big-endian length, the
 * message) base64-encoded for an {@code application/grpc-web-text} client, each frame on its own
 * and padded at its end, as Envoy's filter encodes them. Envoy waits for a whole frame before it
 * encodes it; this encoder writes each complete 3-byte group as it arrives and pads when the frame
 * ends, which gives the same bytes while holding at most two bytes of a frame (a large message is
 * not held whole).
 *
 * <p>One per response; not thread-safe (the stream's worker only).
 */
final class GrpcWebTextEncoder {

  private static final byte[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final int PREFIX = 5;

  /** Bytes of the current frame's prefix read, 0 to 5. */
  private int prefixRead;
  /** The current frame's length, as read from its prefix so far. */
  private long length;
  /** Message bytes of the current frame still to come (once its prefix is read). */
  private long remaining;
  /** Bytes of an unfinished 3-byte group, 0 to 2, and their values. */
  private int carried;
  private int carry;

  /**
   * Encodes {@code in} (left as it was; the caller owns it).
   *
   * @param end whether the body ends here: an unfinished frame is padded out too
   */
  ByteBuf encode(ByteBuf in, boolean end, ByteBufAllocator alloc) {
    int n = in.readableBytes();
    ByteBuf out = alloc.buffer(n / 3 * 4 + 8);
    int stop = in.writerIndex();
    for (int i = in.readerIndex(); i < stop; i++) {
      int b = in.getByte(i) & 0xff;
      carry = carry << 8 | b;
      if (++carried == 3) {
        writeGroup(out);
      }
      if (frameEndsWith(b)) {
        pad(out);
      }
    }
    if (end) {
      pad(out);
      prefixRead = 0;
      length = 0;
    }
    return out;
  }

  /** Follows the frame structure one byte at a time; true when {@code b} ends a frame. */
  private boolean frameEndsWith(int b) {
    if (prefixRead < PREFIX) {
      prefixRead++;
      if (prefixRead > 1) {
        length = length << 8 | b;
      }
      if (prefixRead == PREFIX) {
        remaining = length;
        return remaining == 0 && startNextFrame();
      }
      return false;
    }
    return --remaining == 0 && startNextFrame();
  }

  private boolean startNextFrame() {
    prefixRead = 0;
    length = 0;
    return true;
  }

  private void writeGroup(ByteBuf out) {
    out.writeByte(ALPHABET[carry >> 18 & 0x3f]);
    out.writeByte(ALPHABET[carry >> 12 & 0x3f]);
    out.writeByte(ALPHABET[carry >> 6 & 0x3f]);
    out.writeByte(ALPHABET[carry & 0x3f]);
    carry = 0;
    carried = 0;
  }

  /** Ends the current base64 segment: one or two carried bytes become a padded quantum. */
  private void pad(ByteBuf out) {
    if (carried == 1) {
      out.writeByte(ALPHABET[carry >> 2 & 0x3f]);
      out.writeByte(ALPHABET[carry << 4 & 0x3f]);
      out.writeByte('=');
      out.writeByte('=');
    } else if (carried == 2) {
      out.writeByte(ALPHABET[carry >> 10 & 0x3f]);
      out.writeByte(ALPHABET[carry >> 4 & 0x3f]);
      out.writeByte(ALPHABET[carry << 2 & 0x3f]);
      out.writeByte('=');
    }
    carry = 0;
    carried = 0;
  }

  /** The base64 of {@code bytes} as one padded segment (the trailer frame). */
  static ByteBuf encodeWhole(ByteBuf bytes, ByteBufAllocator alloc) {
    GrpcWebTextEncoder segment = new GrpcWebTextEncoder();
    segment.prefixRead = PREFIX; // no frame tracking: pad only at the end
    segment.remaining = Long.MAX_VALUE;
    return segment.encode(bytes, true, alloc);
  }
}
