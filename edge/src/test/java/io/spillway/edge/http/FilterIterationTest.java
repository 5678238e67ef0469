package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The filter chain's iteration rules, one direction, with scripted filters and no sockets. */
class FilterIterationTest {

  private final List<String> calls = new ArrayList<>();
  private final List<ByteBuf> held = new ArrayList<>();

  @AfterEach
  void releaseHeld() {
    held.forEach(b -> {
      if (b.refCnt() > 0) {
        b.release(b.refCnt());
      }
    });
  }

  /** A filter answering from scripts; records every call as "name:kind[:payload][:end]". */
  private final class Scripted {
    final String name;
    Function<Boolean, FilterHeadersStatus> onHeaders = end -> FilterHeadersStatus.CONTINUE;
    Function<String, FilterDataStatus> onData = text -> FilterDataStatus.CONTINUE;
    FilterTrailersStatus onTrailers = FilterTrailersStatus.CONTINUE;
    /** When set, the filter takes each part and passes on this instead (a body rewrite). */
    Function<String, String> rewrite;
    /** When set, the filter passes this on ahead of the trailers. */
    String beforeTrailers;

    Scripted(String name) {
      this.name = name;
    }
  }

  private final class Chain extends FilterIteration<String> {
    final Scripted[] filters;
    long limit = 1024;
    boolean ended;
    int overLimit;
    final List<Boolean> watermarks = new ArrayList<>();

    Chain(Scripted... filters) {
      super(filters.length);
      this.filters = filters;
    }

    @Override
    FilterHeadersStatus callHeaders(int index, String headers, boolean endStream) {
      calls.add(filters[index].name + ":headers" + (endStream ? ":end" : ""));
      return filters[index].onHeaders.apply(endStream);
    }

    @Override
    FilterDataStatus callData(int index, ByteBuf data, boolean endStream) {
      String text = data.toString(StandardCharsets.US_ASCII);
      calls.add(filters[index].name + ":data:" + text + (endStream ? ":end" : ""));
      if (filters[index].rewrite != null) {
        data.release();
        inject(FilterIterationTest.this.data(filters[index].rewrite.apply(text)));
        return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
      }
      FilterDataStatus s = filters[index].onData.apply(text);
      if (s == FilterDataStatus.STOP_ITERATION_NO_BUFFER) {
        data.release();
      }
      return s;
    }

    @Override
    FilterTrailersStatus callTrailers(int index, HttpHeaders trailers) {
      calls.add(filters[index].name + ":trailers");
      if (filters[index].beforeTrailers != null) {
        inject(FilterIterationTest.this.data(filters[index].beforeTrailers));
      }
      return filters[index].onTrailers;
    }

    @Override
    void sinkHeaders(String headers, boolean endStream) {
      calls.add("sink:headers" + (endStream ? ":end" : ""));
    }

    @Override
    void sinkData(ByteBuf data, boolean endStream) {
      calls.add("sink:data:" + data.toString(StandardCharsets.US_ASCII) + (endStream ? ":end" : ""));
      data.release();
    }

    @Override
    void sinkTrailers(HttpHeaders trailers) {
      calls.add("sink:trailers");
    }

    @Override
    boolean ended() {
      return ended;
    }

    @Override
    long bufferLimit() {
      return limit;
    }

    @Override
    void overLimit() {
      overLimit++;
      ended = true;
    }

    @Override
    void watermark(boolean above) {
      watermarks.add(above);
    }

    @Override
    CompositeByteBuf newBuffer() {
      return UnpooledByteBufAllocator.DEFAULT.compositeBuffer();
    }
  }

  private ByteBuf data(String text) {
    ByteBuf b = Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    held.add(b);
    return b;
  }

  @Test
  void everythingPassesEveryFilterInOrderWhenAllContinue() {
    Chain chain = new Chain(new Scripted("a"), new Scripted("b"));
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.data(data("y"), true);
    assertThat(calls).containsExactly("a:headers", "b:headers", "sink:headers",
        "a:data:x", "b:data:x", "sink:data:x", "a:data:y:end", "b:data:y:end", "sink:data:y:end");
  }

  @Test
  void aFilterStoppingOnHeadersHoldsEverythingAfterItUntilItContinues() {
    Scripted a = new Scripted("a");
    Scripted b = new Scripted("b");
    b.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    b.onData = text -> FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    Scripted c = new Scripted("c");
    Chain chain = new Chain(a, b, c);
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.data(data("y"), true);
    assertThat(calls).containsExactly("a:headers", "b:headers", "a:data:x", "b:data:x", "a:data:y:end", "b:data:y:end");
    assertThat(chain.bufferedBytes()).isEqualTo(2);

    calls.clear();
    b.onData = text -> FilterDataStatus.CONTINUE;
    chain.continueIteration();
    // c gets the headers and then the buffered body as one part, ending the stream.
    assertThat(calls).containsExactly("c:headers", "c:data:xy:end", "sink:headers", "sink:data:xy:end");
    assertThat(chain.bufferedBytes()).isZero();
  }

  @Test
  void continuingDataWhileHoldingTheHeadersResumesIteration() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    Chain chain = new Chain(a, new Scripted("b"));
    chain.headers("h", false);
    chain.data(data("x"), true);
    assertThat(calls).containsExactly("a:headers", "a:data:x:end", "b:headers", "b:data:x:end", "sink:headers",
        "sink:data:x:end");
  }

  @Test
  void aFilterThatRewritesTheBodyPassesOnWhatItInjects() {
    Scripted a = new Scripted("a");
    Scripted b = new Scripted("b");
    b.rewrite = text -> text.toUpperCase(java.util.Locale.ROOT);
    Chain chain = new Chain(a, b, new Scripted("c"));
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.data(data("y"), true);
    assertThat(calls).containsExactly("a:headers", "b:headers", "c:headers", "sink:headers",
        "a:data:x", "b:data:x", "c:data:X", "sink:data:X", "a:data:y:end", "b:data:y:end", "c:data:Y:end",
        "sink:data:Y:end");
    assertThat(chain.bufferedBytes()).isZero();
  }

  @Test
  void aRewriteOfDataHeldByAnEarlierFilterGoesOnWhenItContinues() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    a.onData = text -> FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    Scripted b = new Scripted("b");
    b.rewrite = text -> "<" + text + ">";
    Chain chain = new Chain(a, b);
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.data(data("y"), true);
    calls.clear();
    a.onData = text -> FilterDataStatus.CONTINUE;
    chain.continueIteration();
    assertThat(calls).containsExactly("b:headers", "b:data:xy:end", "sink:headers", "sink:data:<xy>:end");
  }

  @Test
  void whatAFilterInjectsFromItsTrailersCallbackGoesOnAheadOfTheTrailers() {
    Scripted a = new Scripted("a");
    Scripted b = new Scripted("b");
    b.beforeTrailers = "tail";
    Chain chain = new Chain(a, b, new Scripted("c"));
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.trailers(new DefaultHttpHeaders());
    assertThat(calls).containsExactly("a:headers", "b:headers", "c:headers", "sink:headers",
        "a:data:x", "b:data:x", "c:data:x", "sink:data:x",
        "a:trailers", "b:trailers", "c:data:tail", "sink:data:tail", "c:trailers", "sink:trailers");
  }

  @Test
  void trailersInjectionBehindAHoldingFilterIsBufferedWithTheBody() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    a.onData = text -> FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    a.onTrailers = FilterTrailersStatus.STOP_ITERATION;
    Scripted b = new Scripted("b");
    b.beforeTrailers = "tail";
    Chain chain = new Chain(a, b);
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.trailers(new DefaultHttpHeaders());
    calls.clear();
    chain.continueIteration();
    assertThat(calls).containsExactly("b:headers", "b:data:x", "b:trailers", "sink:headers", "sink:data:xtail",
        "sink:trailers");
  }

  @Test
  void injectingOutsideAFilterCallbackIsRefused() {
    Chain chain = new Chain(new Scripted("a"));
    ByteBuf stray = data("x");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> chain.inject(stray))
        .isInstanceOf(IllegalStateException.class);
    assertThat(stray.refCnt()).isZero();
  }

  @Test
  void aFilterThatTakesTheDataStopsItThere() {
    Scripted a = new Scripted("a");
    a.onData = text -> FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    Chain chain = new Chain(a, new Scripted("b"));
    chain.headers("h", false);
    chain.data(data("x"), false);
    assertThat(calls).containsExactly("a:headers", "b:headers", "sink:headers", "a:data:x");
    assertThat(chain.bufferedBytes()).isZero();
  }

  @Test
  void bufferingPastTheLimitFailsTheDirectionOnce() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    a.onData = text -> FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    Chain chain = new Chain(a, new Scripted("b"));
    chain.limit = 3;
    chain.headers("h", false);
    chain.data(data("ab"), false);
    assertThat(chain.overLimit).isZero();
    chain.data(data("cd"), false);
    assertThat(chain.overLimit).isEqualTo(1);
    ByteBuf late = data("ef");
    chain.data(late, true);
    assertThat(late.refCnt()).as("a part arriving after the end is released").isZero();
    assertThat(calls).doesNotContain("b:headers");
  }

  @Test
  void watermarkBufferingPausesPastTheLimitAndResumesWhenDrained() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    a.onData = text -> FilterDataStatus.STOP_ITERATION_AND_WATERMARK;
    Chain chain = new Chain(a, new Scripted("b"));
    chain.limit = 3;
    chain.headers("h", false);
    chain.data(data("ab"), false);
    chain.data(data("cd"), false);
    chain.data(data("ef"), false);
    assertThat(chain.watermarks).containsExactly(true);
    assertThat(chain.overLimit).isZero();
    a.onData = text -> FilterDataStatus.CONTINUE;
    chain.continueIteration();
    assertThat(chain.watermarks).containsExactly(true, false);
    assertThat(calls).endsWith("b:headers", "b:data:abcdef", "sink:headers", "sink:data:abcdef");
  }

  @Test
  void trailersWaitBehindAHoldingFilterAndEndTheStream() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    a.onData = text -> FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    a.onTrailers = FilterTrailersStatus.STOP_ITERATION;
    Chain chain = new Chain(a, new Scripted("b"));
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.trailers(new DefaultHttpHeaders().add("t", "1"));
    assertThat(calls).containsExactly("a:headers", "a:data:x", "a:trailers");
    calls.clear();
    a.onData = text -> FilterDataStatus.CONTINUE;
    a.onTrailers = FilterTrailersStatus.CONTINUE;
    chain.continueIteration();
    // The body is not the end: the trailers are.
    assertThat(calls).containsExactly("b:headers", "b:data:x", "b:trailers", "sink:headers", "sink:data:x",
        "sink:trailers");
  }

  @Test
  void headersWithEndStreamCarryTheEndToEveryFilter() {
    Chain chain = new Chain(new Scripted("a"), new Scripted("b"));
    chain.headers("h", true);
    assertThat(calls).containsExactly("a:headers:end", "b:headers:end", "sink:headers:end");
  }

  @Test
  void aContinueFromInsideTheStoppingCallIsHonouredOnReturn() {
    Scripted a = new Scripted("a");
    Chain[] ref = new Chain[1];
    a.onHeaders = end -> {
      ref[0].continueIteration(); // an inline verdict, then the filter says stop anyway
      return FilterHeadersStatus.STOP_ITERATION;
    };
    Chain chain = new Chain(a, new Scripted("b"));
    ref[0] = chain;
    chain.headers("h", true);
    assertThat(calls).containsExactly("a:headers:end", "b:headers:end", "sink:headers:end");
  }

  @Test
  void nothingIsDeliveredOnceTheDirectionEnded() {
    Scripted a = new Scripted("a");
    Chain[] ref = new Chain[1];
    a.onHeaders = end -> {
      ref[0].ended = true; // a local reply from this filter
      return FilterHeadersStatus.STOP_ITERATION;
    };
    Chain chain = new Chain(a, new Scripted("b"));
    ref[0] = chain;
    chain.headers("h", false);
    ByteBuf x = data("x");
    chain.data(x, true);
    assertThat(calls).containsExactly("a:headers");
    assertThat(x.refCnt()).isZero();
  }

  @Test
  void anEmptyChainSendsStraightToTheSink() {
    Chain chain = new Chain();
    chain.headers("h", false);
    chain.data(data("x"), false);
    chain.trailers(new DefaultHttpHeaders());
    assertThat(calls).containsExactly("sink:headers", "sink:data:x", "sink:trailers");
  }

  @Test
  void releaseGivesBackTheBuffer() {
    Scripted a = new Scripted("a");
    a.onHeaders = end -> FilterHeadersStatus.STOP_ITERATION;
    a.onData = text -> FilterDataStatus.STOP_ITERATION_AND_BUFFER;
    Chain chain = new Chain(a);
    chain.headers("h", false);
    ByteBuf x = data("x");
    chain.data(x, false);
    assertThat(x.refCnt()).isEqualTo(1);
    chain.release();
    assertThat(x.refCnt()).isZero();
  }
}
