package io.spillway.edge.accesslog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.AccessLogConfig.FormattedValue;
import io.spillway.edge.config.AccessLogConfig.JsonField;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.http.filter.MetadataValue;
import io.spillway.edge.http.filter.MetadataValue.BoolValue;
import io.spillway.edge.http.filter.MetadataValue.ListValue;
import io.spillway.edge.http.filter.MetadataValue.NumberValue;
import io.spillway.edge.http.filter.MetadataValue.StringValue;
import io.spillway.edge.http.filter.MetadataValue.StructValue;
import io.spillway.edge.http.filter.StreamInfo;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code %DYNAMIC_METADATA(NAMESPACE:KEY*):Z%} as Envoy prints it: strings unquoted in text, other
 * kinds and whole namespaces as JSON, nested keys, absent values, truncation, and the typed and
 * string-only JSON formats.
 */
class DynamicMetadataFormatTest {

  private static final String NS = "envoy.filters.http.header_to_metadata";

  private static LogInput input() {
    StreamInfo info = new StreamInfo(1, 1, "10.0.0.1", false);
    info.setDynamicMetadata(NS, "version", new StringValue("v2-canary"));
    info.setDynamicMetadata(NS, "weight", new NumberValue(5));
    info.setDynamicMetadata(NS, "ratio", new NumberValue(0.25));
    info.setDynamicMetadata(NS, "beta", new BoolValue(true));
    info.setDynamicMetadata(NS, "nothing", MetadataValue.NullValue.INSTANCE);
    info.setDynamicMetadata("acme.lb", "shard", new StructValue(Map.of(
        "zone", new StringValue("eu \"west\""), "ids", new ListValue(List.of(new NumberValue(1), new NumberValue(2))))));
    return new LogInput(info, null, null, null, new SplittableRandom(1));
  }

  private static LogInput withoutMetadata() {
    return new LogInput(new StreamInfo(1, 1, "10.0.0.1", false), null, null, null, new SplittableRandom(1));
  }

  private static String text(String format, LogInput in) throws ConfigException {
    return LogFormatter.compile(AccessLogConfig.textFormat(format, false), k -> null, "h").format(in);
  }

  private static String json(boolean typed, LogInput in, String... keyFormats) throws ConfigException {
    List<JsonField> fields = new java.util.ArrayList<>();
    for (int i = 0; i < keyFormats.length; i += 2) {
      fields.add(new JsonField(keyFormats[i],
          new FormattedValue(AccessLogConfig.textFormat(keyFormats[i + 1], false).tokens())));
    }
    return LogFormatter.compile(new AccessLogConfig.JsonFormat(fields, typed, false), k -> null, "h").format(in);
  }

  @Test
  void aKeysValueInTextStringsUnquotedOtherKindsAsJson() throws ConfigException {
    assertThat(text("%DYNAMIC_METADATA(" + NS + ":version)%", input())).isEqualTo("v2-canary");
    assertThat(text("%DYNAMIC_METADATA(" + NS + ":weight)% %DYNAMIC_METADATA(" + NS + ":ratio)% "
        + "%DYNAMIC_METADATA(" + NS + ":beta)%", input())).isEqualTo("5 0.25 true");
    assertThat(text("%DYNAMIC_METADATA(acme.lb:shard)%", input()))
        .isEqualTo("{\"ids\":[1,2],\"zone\":\"eu \\\"west\\\"\"}");
  }

  @Test
  void aNestedPathWalksStructs() throws ConfigException {
    assertThat(text("%DYNAMIC_METADATA(acme.lb:shard:zone)%", input())).isEqualTo("eu \"west\"");
    assertThat(text("%DYNAMIC_METADATA(acme.lb:shard:ids)%", input())).isEqualTo("[1,2]");
    // A key under a value that is not a struct, or a missing key on the way, is absent.
    assertThat(text("%DYNAMIC_METADATA(" + NS + ":version:x)%", input())).isEqualTo("-");
    assertThat(text("%DYNAMIC_METADATA(acme.lb:other:zone)%", input())).isEqualTo("-");
  }

  @Test
  void aWholeNamespaceIsItsJsonObjectSortedByKey() throws ConfigException {
    assertThat(text("%DYNAMIC_METADATA(" + NS + ")%", input())).isEqualTo(
        "{\"beta\":true,\"nothing\":null,\"ratio\":0.25,\"version\":\"v2-canary\",\"weight\":5}");
  }

  @Test
  void absentIsADashAndANullValueCountsAsAbsent() throws ConfigException {
    assertThat(text("[%DYNAMIC_METADATA(" + NS + ":missing)%]", input())).isEqualTo("[-]");
    assertThat(text("[%DYNAMIC_METADATA(" + NS + ":nothing)%]", input())).isEqualTo("[-]");
    assertThat(text("[%DYNAMIC_METADATA(no.such)%]", input())).isEqualTo("[-]");
    assertThat(text("[%DYNAMIC_METADATA(" + NS + ":version)%] [%DYNAMIC_METADATA(" + NS + ")%]", withoutMetadata()))
        .isEqualTo("[-] [-]");
    assertThat(withoutMetadata().info().dynamicMetadata()).as("nothing written, nothing allocated").isNull();
  }

  @Test
  void maxLengthCutsTheTextWhateverTheKind() throws ConfigException {
    assertThat(text("%DYNAMIC_METADATA(" + NS + ":version):2%", input())).isEqualTo("v2");
    assertThat(text("%DYNAMIC_METADATA(" + NS + "):9%", input())).isEqualTo("{\"beta\":t");
  }

  @Test
  void typedJsonKeepsEachKindAndCutsOnlyStrings() throws ConfigException {
    assertThat(json(true, input(),
        "version", "%DYNAMIC_METADATA(" + NS + ":version):2%",
        "weight", "%DYNAMIC_METADATA(" + NS + ":weight)%",
        "beta", "%DYNAMIC_METADATA(" + NS + ":beta)%",
        "shard", "%DYNAMIC_METADATA(acme.lb:shard):3%",
        "missing", "%DYNAMIC_METADATA(" + NS + ":missing)%",
        "inText", "v=%DYNAMIC_METADATA(" + NS + ":version)%"))
        .isEqualTo("{\"version\":\"v2\",\"weight\":5,\"beta\":true,\"shard\":{\"ids\":[1,2],\"zone\":\"eu \\\"west\\\"\"},"
            + "\"missing\":null,\"inText\":\"v=v2-canary\"}\n");
  }

  @Test
  void stringOnlyJsonQuotesTheTextForm() throws ConfigException {
    assertThat(json(false, input(),
        "weight", "%DYNAMIC_METADATA(" + NS + ":weight)%",
        "shard", "%DYNAMIC_METADATA(acme.lb:shard:ids)%",
        "missing", "%DYNAMIC_METADATA(" + NS + ":missing)%"))
        .isEqualTo("{\"weight\":\"5\",\"shard\":\"[1,2]\",\"missing\":\"-\"}\n");
  }

  @Test
  void numbersPrintAsProtobufJsonDoes() {
    StringBuilder out = new StringBuilder();
    for (double d : new double[] {5, -3, 0.1, 1e21, 1.5e-7, 12345678.5, 1e15, 0.1 + 0.2}) {
      MetadataValue.appendNumber(out, d);
      out.append(' ');
    }
    assertThat(out.toString()).isEqualTo("5 -3 0.1 1e+21 1.5e-07 12345678.5 1e+15 0.30000000000000004 ");
  }

  @Test
  void theNamespaceIsRequired() {
    assertThatThrownBy(() -> AccessLogConfig.textFormat("%DYNAMIC_METADATA%", false))
        .hasMessageContaining("%DYNAMIC_METADATA% needs a namespace");
    assertThatThrownBy(() -> AccessLogConfig.textFormat("%DYNAMIC_METADATA(:key)%", false))
        .hasMessageContaining("needs a namespace");
  }
}
