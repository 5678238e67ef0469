package io.spillway.edge.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

/** Reading B3 (multi and single header) and W3C traceparent contexts, and refusing malformed ones. */
class TraceContextTest {

  private static TraceContext extract(String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return TraceContext.extract(h);
  }

  @Test
  void multiHeaderB3() {
    TraceContext c = extract("x-b3-traceid", "463ac35c9f6413ad", "x-b3-spanid", "a2fb4a1d1a96d312",
        "x-b3-parentspanid", "0020000000000001", "x-b3-sampled", "1");
    assertThat(c).isEqualTo(new TraceContext(0, 0x463ac35c9f6413adL, 0xa2fb4a1d1a96d312L, 0x0020000000000001L, true,
        false));
    TraceContext wide = extract("x-b3-traceid", "80f198ee56343ba864fe8b2a57d3eff7", "x-b3-spanid", "e457b5a2e4d86bd1");
    assertThat(wide.traceIdHigh()).isEqualTo(0x80f198ee56343ba8L);
    assertThat(wide.traceIdLow()).isEqualTo(0x64fe8b2a57d3eff7L);
    assertThat(wide.sampled()).isNull();
    assertThat(extract("x-b3-traceid", "1", "x-b3-spanid", "2", "x-b3-sampled", "true").sampled()).isTrue();
    assertThat(extract("x-b3-traceid", "1", "x-b3-spanid", "2", "x-b3-sampled", "0").sampled()).isFalse();
  }

  @Test
  void aSamplingFlagWithoutASpanIsOnlyADecision() {
    TraceContext c = extract("x-b3-sampled", "0");
    assertThat(c.hasSpan()).isFalse();
    assertThat(c.sampled()).isFalse();
    assertThat(extract("b3", "1").sampled()).isTrue();
    assertThat(extract("b3", "d").sampled()).isTrue();
    assertThat(extract().hasSpan()).isFalse();
    assertThat(extract().sampled()).isNull();
  }

  @Test
  void singleHeaderB3InEveryForm() {
    assertThat(extract("b3", "80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1-05e3ac9a4f6e3b90"))
        .isEqualTo(new TraceContext(0x80f198ee56343ba8L, 0x64fe8b2a57d3eff7L, 0xe457b5a2e4d86bd1L,
            0x05e3ac9a4f6e3b90L, true, false));
    assertThat(extract("b3", "64fe8b2a57d3eff7-e457b5a2e4d86bd1"))
        .isEqualTo(new TraceContext(0, 0x64fe8b2a57d3eff7L, 0xe457b5a2e4d86bd1L, 0, null, false));
    assertThat(extract("b3", "64fe8b2a57d3eff7-e457b5a2e4d86bd1-0").sampled()).isFalse();
    // The single header wins over the multi headers.
    assertThat(extract("b3", "64fe8b2a57d3eff7-e457b5a2e4d86bd1-1", "x-b3-traceid", "1", "x-b3-spanid", "2")
        .spanId()).isEqualTo(0xe457b5a2e4d86bd1L);
  }

  @Test
  void traceparentWhenThereIsNoB3() {
    TraceContext c = extract("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(c).isEqualTo(new TraceContext(0x0af7651916cd43ddL, 0x8448eb211c80319cL, 0xb7ad6b7169203331L, 0, true,
        true));
    assertThat(extract("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00").sampled()).isFalse();
    assertThat(extract("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "x-b3-traceid", "1", "x-b3-spanid", "2").w3c()).isFalse();
  }

  @Test
  void malformedContextsStopTracing() {
    assertThat(extract("b3", "zz")).isSameAs(TraceContext.INVALID);
    assertThat(extract("b3", "64fe8b2a57d3eff7-e457b5a2e4d86bd1-x")).isSameAs(TraceContext.INVALID);
    assertThat(extract("b3", "64fe8b2a57d3eff7-e457b5a2e4d86bd1-1-05e3")).isSameAs(TraceContext.INVALID);
    assertThat(extract("x-b3-traceid", "nothex", "x-b3-spanid", "2")).isSameAs(TraceContext.INVALID);
    assertThat(extract("x-b3-traceid", "1", "x-b3-spanid", "12345678901234567")).isSameAs(TraceContext.INVALID);
    assertThat(extract("traceparent", "00-00000000000000000000000000000000-b7ad6b7169203331-01"))
        .isSameAs(TraceContext.INVALID);
    assertThat(extract("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033-01"))
        .isSameAs(TraceContext.INVALID);
  }
}
