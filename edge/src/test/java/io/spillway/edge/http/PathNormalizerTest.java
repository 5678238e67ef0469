package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.spillway.edge.config.HttpConnectionManagerConfig.EscapedSlashesAction;
import io.spillway.edge.config.HttpConnectionManagerConfig.PathNormalization;
import io.spillway.edge.http.PathNormalizer.Outcome;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PathNormalizerTest {

  private static RequestHeaders get(String path) {
    return new RequestHeaders("GET", "http", "example.com", path, DefaultHttpHeadersFactory.headersFactory().newHeaders());
  }

  private static RuntimeSnapshot runtime(Map<String, String> values) {
    return new RuntimeSnapshot(List.of("test"), List.of(values));
  }

  @Test
  void escapedSlashesComeFirstThenNormalizationThenMerging() {
    PathNormalizer forward = new PathNormalizer(true, true, EscapedSlashesAction.UNESCAPE_AND_FORWARD);
    RequestHeaders h = get("/a%2F..%2Fb%5C.//c?q=%2F//");
    assertThat(forward.apply(h)).isEqualTo(Outcome.CONTINUE);
    assertThat(h.pathAndQuery()).isEqualTo("/b/c?q=%2F//");
    assertThat(h.path()).isEqualTo("/b/c");
    assertThat(h.query()).isEqualTo("q=%2F//");
  }

  @Test
  void mergingAfterNormalizationCatchesTheSlashesADotSegmentLeaves() {
    RequestHeaders h = get("/a/.//b");
    assertThat(new PathNormalizer(true, true, EscapedSlashesAction.KEEP_UNCHANGED).apply(h)).isEqualTo(Outcome.CONTINUE);
    assertThat(h.pathAndQuery()).isEqualTo("/a/b");
  }

  @Test
  void rejectsEscapedSlashesUnderRejectRequestAndLeavesOthersAlone() {
    PathNormalizer reject = new PathNormalizer(false, false, EscapedSlashesAction.REJECT_REQUEST);
    RequestHeaders h = get("/a%2fb");
    assertThat(reject.apply(h)).isEqualTo(Outcome.REJECT);
    assertThat(h.pathAndQuery()).isEqualTo("/a%2fb");
    RequestHeaders query = get("/a?b=%2F");
    assertThat(reject.apply(query)).isEqualTo(Outcome.CONTINUE);
  }

  @Test
  void redirectsOnlyWhenThereWereEscapedSlashes() {
    PathNormalizer redirect = new PathNormalizer(true, false, EscapedSlashesAction.UNESCAPE_AND_REDIRECT);
    RequestHeaders h = get("/a%2F%2e%2e%2Fb?x=1");
    assertThat(redirect.apply(h)).isEqualTo(Outcome.REDIRECT);
    assertThat(h.pathAndQuery()).isEqualTo("/b?x=1");
    RequestHeaders dots = get("/a/../b");
    assertThat(redirect.apply(dots)).isEqualTo(Outcome.CONTINUE);
    assertThat(dots.pathAndQuery()).isEqualTo("/b");
  }

  @Test
  void keepsEscapedSlashesUnderKeepUnchanged() {
    RequestHeaders h = get("/a%2Fb");
    assertThat(new PathNormalizer(true, true, EscapedSlashesAction.KEEP_UNCHANGED).apply(h))
        .isEqualTo(Outcome.CONTINUE);
    assertThat(h.pathAndQuery()).isEqualTo("/a%2Fb");
  }

  @Test
  void aPathThatCannotBeNormalizedIsRejected() {
    RequestHeaders h = get("/a/%00/b");
    assertThat(new PathNormalizer(true, false, EscapedSlashesAction.KEEP_UNCHANGED).apply(h)).isEqualTo(Outcome.REJECT);
  }

  @Test
  void leavesTheHeadersUntouchedWhenNothingChanges() {
    RequestHeaders h = get("/a/b?c=d");
    String before = h.pathAndQuery();
    String path = h.path();
    assertThat(new PathNormalizer(true, true, EscapedSlashesAction.UNESCAPE_AND_FORWARD).apply(h))
        .isEqualTo(Outcome.CONTINUE);
    assertThat(h.pathAndQuery()).isSameAs(before);
    assertThat(h.path()).isSameAs(path);
  }

  @Test
  void leavesAnAsteriskTargetAlone() {
    RequestHeaders h = get("*");
    assertThat(new PathNormalizer(true, true, EscapedSlashesAction.REJECT_REQUEST).apply(h)).isEqualTo(Outcome.CONTINUE);
    assertThat(h.pathAndQuery()).isEqualTo("*");
  }

  @Test
  void envoysDefaultsChangeNothing() {
    PathNormalizer n = PathNormalizer.resolve(PathNormalization.ENVOY_DEFAULTS, RuntimeSnapshot.EMPTY,
        new SplittableRandom(1));
    assertThat(n.normalizes()).isFalse();
    assertThat(n.mergesSlashes()).isFalse();
    assertThat(n.escapedSlashes()).isEqualTo(EscapedSlashesAction.KEEP_UNCHANGED);
    RequestHeaders h = get("/a/../b%2F//c");
    assertThat(n.apply(h)).isEqualTo(Outcome.CONTINUE);
    assertThat(h.pathAndQuery()).isEqualTo("/a/../b%2F//c");
  }

  @Test
  void theRuntimeDecidesWhatTheConfigLeavesUnset() {
    RuntimeSnapshot runtime = runtime(Map.of(PathNormalizer.RUNTIME_NORMALIZE_PATH, "100",
        PathNormalizer.RUNTIME_ESCAPED_SLASHES_ACTION, "3"));
    PathNormalizer n = PathNormalizer.resolve(PathNormalization.ENVOY_DEFAULTS, runtime, new SplittableRandom(1));
    assertThat(n.normalizes()).isTrue();
    assertThat(n.escapedSlashes()).isEqualTo(EscapedSlashesAction.UNESCAPE_AND_REDIRECT);

    PathNormalizer configured = PathNormalizer.resolve(
        new PathNormalization(Optional.of(false), false, EscapedSlashesAction.REJECT_REQUEST), runtime,
        new SplittableRandom(1));
    assertThat(configured.normalizes()).isFalse();
    assertThat(configured.escapedSlashes()).isEqualTo(EscapedSlashesAction.REJECT_REQUEST);

    PathNormalizer other = PathNormalizer.resolve(PathNormalization.ENVOY_DEFAULTS,
        runtime(Map.of(PathNormalizer.RUNTIME_ESCAPED_SLASHES_ACTION, "1")), new SplittableRandom(1));
    assertThat(other.escapedSlashes()).isEqualTo(EscapedSlashesAction.KEEP_UNCHANGED);
    PathNormalizer outOfRange = PathNormalizer.resolve(PathNormalization.ENVOY_DEFAULTS,
        runtime(Map.of(PathNormalizer.RUNTIME_ESCAPED_SLASHES_ACTION, "9")), new SplittableRandom(1));
    assertThat(outOfRange.escapedSlashes()).isEqualTo(EscapedSlashesAction.KEEP_UNCHANGED);
  }

  @Test
  void theSamplingKeyAtZeroTurnsTheEscapedSlashActionOff() {
    PathNormalizer n = PathNormalizer.resolve(
        new PathNormalization(Optional.empty(), false, EscapedSlashesAction.REJECT_REQUEST),
        runtime(Map.of(PathNormalizer.RUNTIME_ESCAPED_SLASHES_ENABLED, "0")), new SplittableRandom(1));
    assertThat(n.escapedSlashes()).isEqualTo(EscapedSlashesAction.KEEP_UNCHANGED);
  }
}
