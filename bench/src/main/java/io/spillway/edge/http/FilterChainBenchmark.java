package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the filter chain itself costs a request: {@code filters} no-op decoder filters created per
 * request (as factories do) and iterated for the headers and one body part, against the same
 * request with no filter. The difference per filter count is the chain's overhead; the goal is
 * under 100 ns for three no-op filters.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FilterChainBenchmark {

  @Param({"0", "3"})
  int filters;

  private RequestHeaders headers;
  private ByteBuf body;

  /** A filter that passes everything on, as a configured but inactive filter would. */
  static final class NoOpFilter implements DecoderFilter {
    @Override
    public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {}

    @Override
    public FilterHeadersStatus decodeHeaders(RequestHeaders h, boolean endStream) {
      return FilterHeadersStatus.CONTINUE;
    }

    @Override
    public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
      return FilterDataStatus.CONTINUE;
    }
  }

  /** The decode direction over an array of filters, ending at a sink that keeps nothing. */
  static final class Iteration extends FilterIteration<RequestHeaders> {
    final DecoderFilter[] chain;
    Blackhole sink;

    Iteration(DecoderFilter[] chain) {
      super(chain.length);
      this.chain = chain;
    }

    @Override
    FilterHeadersStatus callHeaders(int index, RequestHeaders h, boolean endStream) {
      return chain[index].decodeHeaders(h, endStream);
    }

    @Override
    FilterDataStatus callData(int index, ByteBuf data, boolean endStream) {
      return chain[index].decodeData(data, endStream);
    }

    @Override
    FilterTrailersStatus callTrailers(int index, HttpHeaders trailers) {
      return chain[index].decodeTrailers(trailers);
    }

    @Override
    void sinkHeaders(RequestHeaders h, boolean endStream) {
      sink.consume(h);
    }

    @Override
    void sinkData(ByteBuf data, boolean endStream) {
      sink.consume(data);
    }

    @Override
    void sinkTrailers(HttpHeaders trailers) {}

    @Override
    boolean ended() {
      return false;
    }

    @Override
    long bufferLimit() {
      return 1 << 20;
    }

    @Override
    void overLimit() {}

    @Override
    void watermark(boolean above) {}

    @Override
    CompositeByteBuf newBuffer() {
      return UnpooledByteBufAllocator.DEFAULT.compositeBuffer();
    }
  }

  @Setup
  public void setUp() {
    headers = new RequestHeaders("GET", "http", "example.com", "/a", io.netty.handler.codec.http.DefaultHttpHeadersFactory
        .headersFactory().newHeaders());
    body = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[100]));
  }

  @Benchmark
  public void headersAndOneBodyPart(Blackhole bh) {
    DecoderFilter[] chain = new DecoderFilter[filters];
    for (int i = 0; i < filters; i++) {
      chain[i] = new NoOpFilter();
    }
    Iteration it = new Iteration(chain);
    it.sink = bh;
    it.headers(headers, false);
    it.data(body, true);
  }
}
