package io.spillway.edge.filters.compressor;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.filters.compressor.EncodingChoice.Candidate;
import io.spillway.edge.filters.compressor.EncodingChoice.Decision;
import io.spillway.edge.filters.compressor.EncodingChoice.Kind;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Accept-Encoding against a chain's compressors, as Envoy's chooseEncoding decides. */
class EncodingChoiceTest {

  private static final Candidate GZIP = new Candidate("gz", "gzip", Set.of("text/html", "application/json"), false);
  private static final Candidate ZSTD = new Candidate("zs", "zstd", Set.of("text/html"), false);
  private static final List<Candidate> BOTH = List.of(GZIP, ZSTD);

  private static Decision choose(String acceptEncoding, String contentType, List<Candidate> chain) {
    return EncodingChoice.choose(acceptEncoding, contentType, chain, null);
  }

  @Test
  void theHighestQualityWinsAndTheFirstOnATie() {
    assertThat(choose("gzip, zstd", "text/html", BOTH)).isEqualTo(new Decision("gzip", Kind.VALID));
    assertThat(choose("zstd, gzip", "text/html", BOTH)).isEqualTo(new Decision("zstd", Kind.VALID));
    assertThat(choose("gzip;q=0.4, zstd;q=0.8", "text/html", BOTH)).isEqualTo(new Decision("zstd", Kind.VALID));
    assertThat(choose(" gzip ; Q = 0.9 ,zstd;q=0.5", "text/html", BOTH)).isEqualTo(new Decision("gzip", Kind.VALID));
    assertThat(choose("GZIP", "text/html", BOTH)).isEqualTo(new Decision("gzip", Kind.VALID));
  }

  @Test
  void chooseFirstWinsATie() {
    Candidate zstdFirst = new Candidate("zs", "zstd", Set.of("text/html"), true);
    assertThat(choose("gzip, zstd", "text/html", List.of(GZIP, zstdFirst))).isEqualTo(new Decision("zstd", Kind.VALID));
    assertThat(choose("gzip, zstd;q=0.5", "text/html", List.of(GZIP, zstdFirst)))
        .isEqualTo(new Decision("gzip", Kind.VALID));
  }

  @Test
  void onlyCompressorsOfTheMediaTypeTakePart() {
    assertThat(choose("zstd, gzip;q=0.1", "application/json; charset=utf-8", BOTH))
        .isEqualTo(new Decision("gzip", Kind.VALID));
    assertThat(choose("zstd", "image/png", BOTH)).isEqualTo(new Decision("identity", Kind.NOT_VALID));
    assertThat(choose("zstd", null, BOTH)).as("no media type: every compressor").isEqualTo(
        new Decision("zstd", Kind.VALID));
  }

  @Test
  void wildcardMeansTheFirstCompressorUnlessRuledOut() {
    assertThat(choose("*", "text/html", BOTH)).isEqualTo(new Decision("gzip", Kind.WILDCARD));
    assertThat(choose("gzip;q=0, *", "text/html", BOTH)).isEqualTo(new Decision("zstd", Kind.WILDCARD));
    assertThat(choose("br, *;q=0.5", "text/html", BOTH)).isEqualTo(new Decision("gzip", Kind.WILDCARD));
  }

  @Test
  void identityAndInvalidHeaders() {
    assertThat(choose("identity", "text/html", BOTH)).isEqualTo(new Decision("identity", Kind.IDENTITY));
    assertThat(choose("identity, gzip;q=0.5", "text/html", BOTH)).isEqualTo(new Decision("identity", Kind.IDENTITY));
    assertThat(choose("br", "text/html", BOTH)).isEqualTo(new Decision("identity", Kind.NOT_VALID));
    assertThat(choose("", "text/html", BOTH)).isEqualTo(new Decision("identity", Kind.NOT_VALID));
    assertThat(choose("gzip;q=0, zstd;q=0", "text/html", BOTH)).isEqualTo(new Decision("identity", Kind.NOT_VALID));
    assertThat(choose("gzip;q=abc", "text/html", BOTH)).as("an unparseable q-value drops the token")
        .isEqualTo(new Decision("identity", Kind.NOT_VALID));
    assertThat(choose("gzip;q=abc, zstd", "text/html", BOTH)).isEqualTo(new Decision("zstd", Kind.VALID));
    assertThat(choose("gzip;level=1", "text/html", BOTH)).as("other parameters leave q at 1")
        .isEqualTo(new Decision("gzip", Kind.VALID));
  }

  @Test
  void ofCompressorsWithOneEncodingOnlyTheFirstCounts() {
    Candidate gzipFirst = new Candidate("gz2", "gzip", Set.of("text/html"), true);
    assertThat(choose("zstd, gzip", "text/html", List.of(GZIP, ZSTD, gzipFirst)))
        .isEqualTo(new Decision("zstd", Kind.VALID));
  }
}
