package io.spillway.edge.filters.decompressor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/** gzip bodies for the decompressor's tests: the JDK's, and members with every optional header part. */
final class Gzip {

  private Gzip() {}

  static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** A member with FEXTRA, FNAME, FCOMMENT and FHCRC set (RFC 1952 §2.3). */
  static byte[] gzipWithEveryHeaderField(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, 3});
    out.writeBytes(new byte[] {3, 0, 'a', 'b', 'c'});
    out.writeBytes("name.txt\0".getBytes());
    out.writeBytes("a comment\0".getBytes());
    out.writeBytes(new byte[] {0x12, 0x34}); // the header CRC, which zlib does not insist on either
    Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    deflater.setInput(data);
    deflater.finish();
    byte[] buf = new byte[4096];
    while (!deflater.finished()) {
      out.write(buf, 0, deflater.deflate(buf));
    }
    deflater.end();
    CRC32 crc = new CRC32();
    crc.update(data);
    writeInt(out, (int) crc.getValue());
    writeInt(out, data.length);
    return out.toByteArray();
  }

  private static void writeInt(ByteArrayOutputStream out, int v) {
    out.write(v);
    out.write(v >>> 8);
    out.write(v >>> 16);
    out.write(v >>> 24);
  }

  /** The text "line <i>\n" for i from 0, {@code bytes} long. */
  static byte[] text(int bytes) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; b.length() < bytes; i++) {
      b.append("line ").append(i).append('\n');
    }
    return b.substring(0, bytes).getBytes();
  }
}
