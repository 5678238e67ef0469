package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import com.aayushatharva.brotli4j.decoder.DirectDecompress;
import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;

/** What the compressor ITs decode bodies with, and the origin's generated body to compare them to. */
final class CompressedBodies {

  private CompressedBodies() {}

  static String gunzip(byte[] body) throws IOException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static String unzstd(byte[] body) throws IOException {
    try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(body))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The whole brotli stream, which must be complete. */
  static String unbrotli(byte[] body) throws IOException {
    DirectDecompress d = DirectDecompress.decompress(body);
    assertThat(d.getResultStatus()).as("a complete brotli stream").isEqualTo(DecoderJNI.Status.DONE);
    return new String(d.getDecompressedData(), StandardCharsets.UTF_8);
  }

  /** The origin's generated body: the byte at offset i is 'a' + i % 26. */
  static String pattern(int length) {
    StringBuilder b = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      b.append((char) ('a' + i % 26));
    }
    return b.toString();
  }
}
