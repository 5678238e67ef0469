package io.spillway.edge.filters.grpcweb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The body of an {@code application/grpc-web-text} request, base64 (RFC 4648 §4, the standard
 * alphabet) decoded as it arrives: a 4-character quantum split across parts is completed by the
 * next part. Padding is mandatory and only ends a quantum ({@code xx==}, {@code xxx=}); a padded
 * quantum may be followed by another segment, since a gRPC-Web text stream is the concatenation
 * of the base64 of its frames (grpc/grpc PROTOCOL-WEB.md, "Text-encoded streams"). Anything else
 * is invalid: a character outside the alphabet (whitespace included), {@code =} in a quantum's
 * first two places or before a non-{@code =}, and set bits that the padding discards.
 *
 * <p>One per request; not thread-safe (the stream's worker only).
 */
final class GrpcWebTextDecoder {

  /** A character's 6-bit value; -1 outside the alphabet, -2 for the pad. */
  private static final byte[] VALUES = new byte[256];

  static {
    java.util.Arrays.fill(VALUES, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      VALUES[alphabet.charAt(i)] = (byte) i;
    }
    VALUES['='] = -2;
  }

  /** The current quantum's values so far, 6 bits each. */
  private int bits;
  /** Characters of the current quantum seen, 0 to 3. */
  private int chars;
  /** Whether the current quantum's third character was the pad. */
  private boolean padded;

  /** Characters held of an unfinished quantum, 0 to 3. */
  int pending() {
    return chars;
  }

  /**
   * Decodes what {@code in} completes, leaving {@code in} as it was (the caller owns it).
   *
   * @return the decoded bytes (possibly none), or null when the input is not valid base64
   */
  ByteBuf decode(ByteBuf in, ByteBufAllocator alloc) {
    int end = in.writerIndex();
    ByteBuf out = alloc.buffer((chars + in.readableBytes()) / 4 * 3 + 3);
    for (int i = in.readerIndex(); i < end; i++) {
      if (!accept(in.getByte(i), out)) {
        out.release();
        return null;
      }
    }
    return out;
  }

  private boolean accept(byte c, ByteBuf out) {
    int v = VALUES[c & 0xff];
    if (v == -1) {
      return false;
    }
    switch (chars) {
      case 0, 1 -> {
        if (v < 0) {
          return false;
        }
        bits = bits << 6 | v;
        chars++;
      }
      case 2 -> {
        if (v < 0) {
          padded = true;
        } else {
          bits = bits << 6 | v;
        }
        chars = 3;
      }
      default -> {
        if (padded) {
          // xx== : 12 bits, the low 4 discarded
          if (v != -2 || (bits & 0x0f) != 0) {
            return false;
          }
          out.writeByte(bits >> 4);
        } else if (v == -2) {
          // xxx= : 18 bits, the low 2 discarded
          if ((bits & 0x03) != 0) {
            return false;
          }
          out.writeByte(bits >> 10);
          out.writeByte(bits >> 2);
        } else {
          int all = bits << 6 | v;
          out.writeByte(all >> 16);
          out.writeByte(all >> 8);
          out.writeByte(all);
        }
        bits = 0;
        chars = 0;
        padded = false;
      }
    }
    return true;
  }
}
