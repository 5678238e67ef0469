package io.spillway.edge.filters.lua;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;

/**
 * The whole buffered body as a script sees it (Envoy's {@code BufferWrapper}): its length, a copy
 * of a range of its bytes, or new content, after which the message's {@code content-length}
 * says the new length. Owns the buffer until the filter {@link #take() takes} it back.
 */
final class LuaBody {
  private final LuaCall call;
  private final LuaHeaderMap headers;
  private final ByteBufAllocator allocator;
  private ByteBuf data;

  /** @param data the body; this object owns it */
  LuaBody(LuaCall call, LuaHeaderMap headers, ByteBufAllocator allocator, ByteBuf data) {
    this.call = call;
    this.headers = headers;
    this.allocator = allocator;
    this.data = data;
  }

  int length() {
    call.checkLive();
    return data.readableBytes();
  }

  /** {@code length} bytes from {@code index} (0-based), which must lie within the body. */
  LuaString getBytes(int index, int length) {
    call.checkLive();
    int size = data.readableBytes();
    if (index < 0 || length < 0 || (long) index + length > size) {
      throw new LuaError("index/length must be inside the buffer (length " + size + ")");
    }
    byte[] out = new byte[length];
    data.getBytes(data.readerIndex() + index, out);
    return LuaString.valueUsing(out);
  }

  /** Replaces the body with {@code bytes} and sets {@code content-length} to match. */
  void setBytes(LuaString bytes) {
    call.checkLive();
    if (call.endOfStreamOnHeaders()) {
      throw new LuaError("setBytes: the message has no body to replace (it ended with its headers)");
    }
    ByteBuf replacement = allocator.buffer(bytes.m_length);
    replacement.writeBytes(bytes.m_bytes, bytes.m_offset, bytes.m_length);
    data.release();
    data = replacement;
    headers.setContentLength(bytes.m_length);
  }

  /** The body as it is now; the caller owns it. */
  ByteBuf take() {
    ByteBuf b = data;
    data = null;
    return b;
  }
}
