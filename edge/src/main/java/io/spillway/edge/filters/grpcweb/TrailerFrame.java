package io.spillway.edge.filters.grpcweb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Map;

/**
 * The gRPC-Web trailer frame (grpc/grpc PROTOCOL-WEB.md, "Message framing"): flag byte
 * {@code 0x80} (an uncompressed trailer), the block's length as 4 bytes big-endian, then each
 * trailer field as {@code name:value\r\n}, names in lower case, in the order the upstream sent them.
 */
final class TrailerFrame {

  static final int FLAG = 0x80;

  private TrailerFrame() {}

  static ByteBuf of(HttpHeaders trailers, ByteBufAllocator alloc) {
    ByteBuf frame = alloc.buffer(64);
    frame.writeByte(FLAG);
    frame.writeInt(0); // the length, set below
    for (Map.Entry<String, String> field : trailers) {
      writeLowerCase(frame, field.getKey());
      frame.writeByte(':');
      frame.writeCharSequence(field.getValue(), java.nio.charset.StandardCharsets.ISO_8859_1);
      frame.writeByte('\r');
      frame.writeByte('\n');
    }
    frame.setInt(1, frame.readableBytes() - 5);
    return frame;
  }

  private static void writeLowerCase(ByteBuf out, String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      out.writeByte(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
  }
}
