package io.spillway.edge.filters.compressor;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdInputStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
/**
 * The compressor filter with several compressors in one chain (the client's preference, routes
 * turning one off) and with the zstd and brotli libraries, streamed and finished.
 */
class CompressorLibrariesFilterTest extends CompressorFilterFixture {

  @Test
  void ofSeveralCompressorsTheHighestQualityOneCompresses() throws IOException {
    List<CompressorFactory> chain = chain("gz", gzip(response()), "zs", zstd(false));
    RequestHeaders request = get("accept-encoding", "gzip;q=0.5, zstd");
    ResponseHeaders response = ok("content-type", "application/json");
    FakeStream stream = new FakeStream(alloc, null, request);
    CompressorFilter gz = new CompressorFilter(chain.get(0));
    CompressorFilter zs = new CompressorFilter(chain.get(1));
    for (CompressorFilter f : List.of(gz, zs)) {
      f.setDecoderFilterCallbacks(stream);
      f.setEncoderFilterCallbacks(stream);
      f.decodeHeaders(request, true);
    }
    // Encoder order is the reverse of the chain's: zstd sees the response first.
    zs.encodeHeaders(response, false);
    gz.encodeHeaders(response, false);
    assertThat(response.headers().get("content-encoding")).isEqualTo("zstd");
    ByteBuf in = part(TEXT);
    assertThat(zs.encodeData(in, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    ByteBuf compressed = stream.injected.remove(0);
    buffers.add(compressed);
    assertThat(gz.encodeData(compressed, true)).as("gzip passes it on").isEqualTo(FilterDataStatus.CONTINUE);
    byte[] body = ByteBufUtil.getBytes(compressed);
    compressed.release();
    gz.onDestroy();
    zs.onDestroy();
    try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(body))) {
      assertThat(new String(z.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(TEXT);
    }
    assertThat(counter("http.ingress.compressor.lib.zstd.header_compressor_used")).isEqualTo(1);
    assertThat(counter("http.ingress.compressor.lib.gzip.header_compressor_overshadowed")).isEqualTo(1);
    assertThat(counter("http.ingress.compressor.lib.gzip.not_compressed")).isEqualTo(1);
  }

  @Test
  void aCompressorARouteTurnsOffTakesNoPartInTheChoice() {
    List<CompressorFactory> chain = chain("gz", gzip(response()), "zs", zstd(false));
    RouteEntry noZstd = route(Map.of(), Set.of("zs"));
    ResponseHeaders response = ok("content-type", "text/html");
    // Only gzip runs on this route: zstd, preferred by the client, is not a candidate.
    new Exchange(chain.get(0), noZstd, get("accept-encoding", "zstd, gzip;q=0.1")).headers(response, false)
        .data(TEXT, true).destroy();
    assertThat(response.headers().get("content-encoding")).isEqualTo("gzip");
  }

  @Test
  void zstdRoundTripsAStreamedBody() throws IOException {
    ResponseHeaders response = ok("content-type", "text/css");
    Exchange e = exchange(factory(zstd(false)), get("accept-encoding", "zstd"), response, TEXT, "tail", TEXT);
    assertThat(response.headers().get("content-encoding")).isEqualTo("zstd");
    try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(e.body()))) {
      assertThat(new String(z.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(TEXT + "tail" + TEXT);
    }
    assertThat(counter("http.ingress.compressor.lib.zstd.compressed")).isEqualTo(1);
  }

  @Test
  void aHeapPartIsCompressedToo() throws IOException {
    // The codec's parts are usually direct; a heap one (or a composite) takes the copying path of zstd.
    Exchange e = new Exchange(factory(zstd(false)), null, get("accept-encoding", "zstd"))
        .headers(ok("content-type", "text/css"), false);
    ByteBuf heap = Unpooled.wrappedBuffer(TEXT.getBytes(StandardCharsets.UTF_8));
    buffers.add(heap);
    e.filter.encodeData(heap, true);
    e.takeInjected();
    e.destroy();
    try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(e.body()))) {
      assertThat(new String(z.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(TEXT);
    }
  }

  // ---- brotli --------------------------------------------------------------------------------

  @Test
  void brotliStreamsEachPartDecodableAndEndsAheadOfTrailers() throws IOException {
    ResponseHeaders response = ok("content-type", "application/grpc-web", "content-length", "5000");
    Exchange e = new Exchange(factory(brotli()), null, get("accept-encoding", "br"))
        .headers(response, false);
    assertThat(response.headers().get("content-encoding")).isEqualTo("br");
    assertThat(response.headers().contains("content-length")).isFalse();
    e.data("first part;", false);
    BrotliCompressorTest.Decoded soFar = BrotliCompressorTest.decode(e.body());
    assertThat(soFar.text()).isEqualTo("first part;");
    assertThat(soFar.done()).isFalse();
    e.data(TEXT, false).trailers();
    BrotliCompressorTest.Decoded all = BrotliCompressorTest.decode(e.body());
    assertThat(all.done()).as("the trailers ended the encoded stream").isTrue();
    assertThat(all.text()).isEqualTo("first part;" + TEXT);
    assertThat(counter("http.ingress.compressor.lib.br.compressed")).isEqualTo(1);
    assertThat(counter("http.ingress.compressor.lib.br.total_uncompressed_bytes"))
        .isEqualTo("first part;".length() + TEXT.length());
    assertThat(counter("http.ingress.compressor.lib.br.total_compressed_bytes")).isEqualTo(e.body().length);
    e.destroy();
  }

  @Test
  void brotliEndsTheStreamOnTheLastPart() throws IOException {
    ResponseHeaders response = ok("content-type", "text/css");
    Exchange e = exchange(factory(brotli()), get("accept-encoding", "gzip;q=0.2, br"), response, TEXT, "tail");
    assertThat(response.headers().get("content-encoding")).isEqualTo("br");
    BrotliCompressorTest.Decoded d = BrotliCompressorTest.decode(e.body());
    assertThat(d.done()).isTrue();
    assertThat(d.text()).isEqualTo(TEXT + "tail");
  }

  @Test
  void aBrotliStreamThatEndsEarlyGivesBackItsEncoder() {
    Exchange e = new Exchange(factory(brotli()), null, get("accept-encoding", "br"))
        .headers(ok("content-type", "text/plain"), false);
    e.data(TEXT, false);
    e.destroy();
    e.destroy(); // idempotent: a second destroy of the native encoder would throw
  }

  @Test
  void theClientsPreferenceChoosesBetweenGzipAndBrotli() throws IOException {
    List<CompressorFactory> chain = chain("gz", gzip(response()), "br", brotli());
    for (String accept : List.of("gzip;q=1, br;q=0.5", "br;q=0.5, gzip", "br;q=0.5, gzip;q=0.9")) {
      ResponseHeaders response = ok("content-type", "text/html");
      new Exchange(chain.get(1), null, get("accept-encoding", accept)).headers(response, false).destroy();
      Exchange gz = new Exchange(chain.get(0), null, get("accept-encoding", accept)).headers(response, false)
          .data(TEXT, true);
      gz.destroy();
      assertThat(response.headers().get("content-encoding")).as(accept).isEqualTo("gzip");
      assertThat(gunzip(gz.body())).isEqualTo(TEXT);
    }
    ResponseHeaders response = ok("content-type", "text/html");
    Exchange br = new Exchange(chain.get(1), null, get("accept-encoding", "gzip;q=0.5, br"))
        .headers(response, false).data(TEXT, true);
    br.destroy();
    new Exchange(chain.get(0), null, get("accept-encoding", "gzip;q=0.5, br")).headers(response, false).destroy();
    assertThat(response.headers().get("content-encoding")).isEqualTo("br");
    assertThat(BrotliCompressorTest.decode(br.body()).text()).isEqualTo(TEXT);
    assertThat(counter("http.ingress.compressor.lib.br.header_compressor_overshadowed")).isEqualTo(3);
    assertThat(counter("http.ingress.compressor.lib.br.header_compressor_used")).isEqualTo(1);
  }
}
