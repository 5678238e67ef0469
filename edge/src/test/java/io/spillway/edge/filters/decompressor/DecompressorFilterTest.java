package io.spillway.edge.filters.decompressor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.DecompressorConfig;
import io.spillway.edge.config.RuntimeFlag;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.EncoderFilter;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.Worker;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The decompressor filter through a fake stream: Envoy's header rules both ways (the first
 * Content-Encoding coding, Content-Length, no-transform and its override, headers-only messages,
 * the runtime flag), Accept-Encoding advertising, bodies decoded part by part, the stats, and a
 * bomb or corrupt body ending the stream.
 */
class DecompressorFilterTest {

  private static final DecompressorConfig.Gzip GZIP = new DecompressorConfig.Gzip(15, 4096, 100);
  private static final String PREFIX = "http.ingress.decompressor.basic.gzip.";

  private final StatsStore stats = new StatsStore();
  private Map<String, String> runtimeValues = Map.of();

  /** Both sides of a stream: the recording stream's reply, a worker, and what the filter injects. */
  private static final class Stream extends RecordingStream implements EncoderFilterCallbacks {
    final Worker worker = new Worker(0, null, new SplittableRandom(1), null, UnpooledByteBufAllocator.DEFAULT, null);
    final List<ByteBuf> injectedRequest = new ArrayList<>();
    final List<ByteBuf> injectedResponse = new ArrayList<>();

    Stream(RequestHeaders request) {
      super(null, request, new StreamInfo(0, "127.0.0.1", false));
    }

    @Override
    public Worker worker() {
      return worker;
    }

    @Override
    public void injectDecodedData(ByteBuf data) {
      injectedRequest.add(data);
    }

    @Override
    public void injectEncodedData(ByteBuf data) {
      injectedResponse.add(data);
    }

    @Override
    public void continueEncoding() {
      throw new UnsupportedOperationException("the filter never stops the response");
    }

    static byte[] take(List<ByteBuf> parts) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (ByteBuf b : parts) {
        out.writeBytes(ByteBufUtil.getBytes(b));
        b.release();
      }
      parts.clear();
      return out.toByteArray();
    }
  }

  private StreamFilter filter(DecompressorConfig config, Stream stream) {
    DecompressorFactory factory = new DecompressorFactory("envoy.filters.http.decompressor", config,
        stats.rootScope().scope("http").scope("ingress"),
        () -> new RuntimeSnapshot(List.of("admin"), List.of(runtimeValues)));
    StreamFilter[] made = new StreamFilter[1];
    factory.createFilters(new FilterChainBuilder() {
      @Override
      public void addDecoderFilter(DecoderFilter filter) {
        made[0] = (StreamFilter) filter;
      }

      @Override
      public void addEncoderFilter(EncoderFilter filter) {
        assertThat(filter).isSameAs(made[0]);
      }
    });
    made[0].setDecoderFilterCallbacks(stream);
    made[0].setEncoderFilterCallbacks(stream);
    return made[0];
  }

  private static DecompressorConfig config() {
    return new DecompressorConfig("basic", GZIP, DecompressorConfig.Direction.DEFAULT, true,
        DecompressorConfig.Direction.DEFAULT);
  }

  private static HttpHeaders headers(String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  private static RequestHeaders post(String... nameValues) {
    return new RequestHeaders("POST", "http", "api.example", "/", headers(nameValues));
  }

  private long counter(String name) {
    return stats.find(PREFIX + name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  @Test
  void aGzipRequestBodyIsDecodedPartByPartAndItsHeadersFixed() {
    byte[] data = Gzip.text(10_000);
    byte[] body = Gzip.gzip(data);
    RequestHeaders request = post("content-encoding", "gzip", "content-length", String.valueOf(body.length));
    Stream stream = new Stream(request);
    StreamFilter f = filter(config(), stream);
    f.decodeHeaders(request, false);
    assertThat(request.headers().contains("content-encoding")).isFalse();
    assertThat(request.headers().contains("content-length")).isFalse();
    int half = body.length / 2;
    assertThat(f.decodeData(Unpooled.wrappedBuffer(body, 0, half), false))
        .isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    f.decodeData(Unpooled.wrappedBuffer(body, half, body.length - half), true);
    assertThat(Stream.take(stream.injectedRequest)).isEqualTo(data);
    assertThat(counter("request.decompressed")).isEqualTo(1);
    assertThat(counter("request.total_compressed_bytes")).isEqualTo(body.length);
    assertThat(counter("request.total_uncompressed_bytes")).isEqualTo(data.length);
    f.onDestroy();
  }

  @Test
  void onlyTheFirstCodingIsMatchedAndRemoved() {
    RequestHeaders first = post("content-encoding", "GZIP , br");
    StreamFilter f = filter(config(), new Stream(first));
    f.decodeHeaders(first, false);
    assertThat(first.headers().get("content-encoding")).isEqualTo("br");
    f.onDestroy();

    RequestHeaders last = post("content-encoding", "br, gzip", "content-length", "10");
    StreamFilter g = filter(config(), new Stream(last));
    g.decodeHeaders(last, false);
    assertThat(last.headers().get("content-encoding")).isEqualTo("br, gzip");
    assertThat(last.headers().get("content-length")).isEqualTo("10");
    assertThat(counter("request.decompressed")).isEqualTo(1);
    assertThat(counter("request.not_decompressed")).isEqualTo(1);
  }

  @Test
  void noTransformIsRespectedUnlessIgnored() {
    ResponseHeaders response = new ResponseHeaders(200, headers("content-encoding", "gzip",
        "cache-control", "public, No-Transform"));
    RequestHeaders get = new RequestHeaders("GET", "http", "api.example", "/", headers());
    Stream stream = new Stream(get);
    StreamFilter f = filter(config(), stream);
    f.decodeHeaders(get, true);
    f.encodeHeaders(response, false);
    ByteBuf part = Unpooled.wrappedBuffer(Gzip.gzip(Gzip.text(100)));
    assertThat(f.encodeData(part, true)).isEqualTo(FilterDataStatus.CONTINUE);
    part.release();
    assertThat(response.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(counter("response.not_decompressed")).isEqualTo(1);

    DecompressorConfig ignoring = new DecompressorConfig("basic", GZIP, DecompressorConfig.Direction.DEFAULT, true,
        new DecompressorConfig.Direction(RuntimeFlag.ON, true));
    ResponseHeaders again = new ResponseHeaders(200, headers("content-encoding", "gzip", "cache-control",
        "no-transform"));
    Stream s2 = new Stream(get);
    StreamFilter g = filter(ignoring, s2);
    g.encodeHeaders(again, false);
    byte[] data = Gzip.text(300);
    g.encodeData(Unpooled.wrappedBuffer(Gzip.gzip(data)), true);
    assertThat(Stream.take(s2.injectedResponse)).isEqualTo(data);
    assertThat(again.headers().contains("content-encoding")).isFalse();
    assertThat(counter("response.decompressed")).isEqualTo(1);
  }

  @Test
  void headersOnlyMessagesAreNeitherDecodedNorCounted() {
    RequestHeaders request = post("content-encoding", "gzip");
    StreamFilter f = filter(config(), new Stream(request));
    f.decodeHeaders(request, true);
    ResponseHeaders response = new ResponseHeaders(204, headers("content-encoding", "gzip"));
    f.encodeHeaders(response, true);
    assertThat(request.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(response.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(counter("request.not_decompressed") + counter("response.not_decompressed")).isZero();
  }

  @Test
  void advertisesTheCodingOnceWhileResponsesAreDecoded() {
    RequestHeaders request = post("accept-encoding", "br, gzip;q=0.5, , deflate");
    filter(config(), new Stream(request)).decodeHeaders(request, true);
    assertThat(request.headers().get("accept-encoding")).isEqualTo("br,deflate,gzip");

    RequestHeaders bare = post();
    filter(config(), new Stream(bare)).decodeHeaders(bare, true);
    assertThat(bare.headers().get("accept-encoding")).isEqualTo("gzip");

    DecompressorConfig quiet = new DecompressorConfig("basic", GZIP, DecompressorConfig.Direction.DEFAULT, false,
        DecompressorConfig.Direction.DEFAULT);
    RequestHeaders notAdvertised = post();
    filter(quiet, new Stream(notAdvertised)).decodeHeaders(notAdvertised, true);
    assertThat(notAdvertised.headers().contains("accept-encoding")).isFalse();

    DecompressorConfig responsesOff = new DecompressorConfig("basic", GZIP, DecompressorConfig.Direction.DEFAULT,
        true, new DecompressorConfig.Direction(new RuntimeFlag("decompress.response", true), false));
    runtimeValues = Map.of("decompress.response", "false");
    RequestHeaders off = post();
    filter(responsesOff, new Stream(off)).decodeHeaders(off, true);
    assertThat(off.headers().contains("accept-encoding")).isFalse();
  }

  @Test
  void theRuntimeFlagTurnsADirectionOff() {
    DecompressorConfig keyed = new DecompressorConfig("basic", GZIP,
        new DecompressorConfig.Direction(new RuntimeFlag("decompress.request", true), false), true,
        DecompressorConfig.Direction.DEFAULT);
    runtimeValues = Map.of("decompress.request", "false");
    RequestHeaders request = post("content-encoding", "gzip");
    StreamFilter f = filter(keyed, new Stream(request));
    f.decodeHeaders(request, false);
    assertThat(request.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(counter("request.not_decompressed")).isEqualTo(1);
  }

  @Test
  void aRequestBombIsAnswered400AndTheRestDropped() {
    byte[] bomb = Gzip.gzip(new byte[4 << 20]);
    RequestHeaders request = post("content-encoding", "gzip");
    Stream stream = new Stream(request);
    StreamFilter f = filter(config(), stream);
    f.decodeHeaders(request, false);
    ByteBuf first = Unpooled.wrappedBuffer(bomb);
    assertThat(f.decodeData(first, false)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(first.refCnt()).isZero();
    assertThat(stream.replyStatus).isEqualTo(400);
    assertThat(stream.info.responseCodeDetails()).isEqualTo("decompressor_failed");
    assertThat(stream.injectedRequest).isEmpty();
    ByteBuf more = Unpooled.wrappedBuffer(new byte[10]);
    assertThat(f.decodeData(more, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(more.refCnt()).isZero();
    assertThat(stats.find(PREFIX + "decompressor_library.zlib_data_error").map(s -> ((Counter) s).value()))
        .contains(1L);
    f.onDestroy();
  }

  @Test
  void aCorruptResponseEndsTheStream() {
    RequestHeaders get = new RequestHeaders("GET", "http", "api.example", "/", headers());
    Stream stream = new Stream(get);
    StreamFilter f = filter(config(), stream);
    f.encodeHeaders(new ResponseHeaders(200, headers("content-encoding", "gzip")), false);
    f.encodeData(Unpooled.wrappedBuffer("not gzip at all".getBytes()), false);
    assertThat(stream.replyStatus).isEqualTo(502);
    assertThat(stream.injectedResponse).isEmpty();
  }
}
