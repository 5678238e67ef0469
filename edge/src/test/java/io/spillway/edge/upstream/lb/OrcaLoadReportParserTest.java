package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import io.spillway.edge.upstream.lb.OrcaLoadReportParser.MalformedLoadReportException;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OrcaLoadReportParserTest {

  @Test
  void textWithEqualsAndColons() {
    var r = OrcaLoadReportParser.parseHeader(
        "TEXT cpu_utilization=0.5, mem_utilization:0.25,application_utilization=0.7,rps_fractional=120.5,"
            + " eps=3, named_metrics.queue=12, utilization.disk=0.9, request_cost.db=2");
    assertThat(r.cpuUtilization()).isEqualTo(0.5);
    assertThat(r.memUtilization()).isEqualTo(0.25);
    assertThat(r.applicationUtilization()).isEqualTo(0.7);
    assertThat(r.rpsFractional()).isEqualTo(120.5);
    assertThat(r.eps()).isEqualTo(3);
    assertThat(r.namedMetrics()).containsEntry("queue", 12.0);
    assertThat(r.utilization()).containsEntry("disk", 0.9);
    assertThat(r.requestCost()).containsEntry("db", 2.0);
  }

  @Test
  void jsonInBothNamingStyles() {
    var snake = OrcaLoadReportParser.parseHeader(
        "JSON {\"cpu_utilization\": 0.3, \"rps_fractional\": 10, \"named_metrics\": {\"a\": 1.5, \"b\": 2}}");
    assertThat(snake.cpuUtilization()).isEqualTo(0.3);
    assertThat(snake.rpsFractional()).isEqualTo(10);
    assertThat(snake.namedMetrics()).containsEntry("a", 1.5).containsEntry("b", 2.0);
    var camel = OrcaLoadReportParser.parseHeader(
        "JSON {\"applicationUtilization\":0.4,\"rpsFractional\":5,\"eps\":1,\"utilization\":{},\"rps\":\"7\"}");
    assertThat(camel.applicationUtilization()).isEqualTo(0.4);
    assertThat(camel.rpsFractional()).isEqualTo(5);
    assertThat(camel.eps()).isEqualTo(1);
    assertThat(OrcaLoadReportParser.parseHeader("JSON {}").cpuUtilization()).isZero();
  }

  private static String bin(OrcaLoadReport proto) {
    return Base64.getEncoder().encodeToString(proto.toByteArray());
  }

  @Test
  void binaryMatchesTheProto() {
    OrcaLoadReport proto = OrcaLoadReport.newBuilder()
        .setCpuUtilization(0.61).setMemUtilization(0.2).setApplicationUtilization(0.8).setRpsFractional(99.5)
        .setEps(1.25).setRps(100).putNamedMetrics("q", 4).putUtilization("net", 0.5).putRequestCost("c", 3)
        .build();
    for (var r : List.of(OrcaLoadReportParser.parseBinary(bin(proto)),
        OrcaLoadReportParser.parseHeader("BIN " + bin(proto)))) {
      assertThat(r.cpuUtilization()).isEqualTo(0.61);
      assertThat(r.memUtilization()).isEqualTo(0.2);
      assertThat(r.applicationUtilization()).isEqualTo(0.8);
      assertThat(r.rpsFractional()).isEqualTo(99.5);
      assertThat(r.eps()).isEqualTo(1.25);
      assertThat(r.namedMetrics()).containsExactlyEntriesOf(java.util.Map.of("q", 4.0));
      assertThat(r.utilization()).containsExactlyEntriesOf(java.util.Map.of("net", 0.5));
      assertThat(r.requestCost()).containsExactlyEntriesOf(java.util.Map.of("c", 3.0));
    }
    assertThat(OrcaLoadReportParser.parseBinary("").rpsFractional()).isZero();
  }

  @Test
  void binarySkipsUnknownFields() {
    byte[] known = OrcaLoadReport.newBuilder().setCpuUtilization(0.5).build().toByteArray();
    byte[] unknown = {(byte) 0x50, 0x05, (byte) 0x5A, 0x02, 'h', 'i'}; // field 10 varint, field 11 bytes
    byte[] all = new byte[known.length + unknown.length];
    System.arraycopy(known, 0, all, 0, known.length);
    System.arraycopy(unknown, 0, all, known.length, unknown.length);
    assertThat(OrcaLoadReportParser.parseBinary(Base64.getEncoder().encodeToString(all)).cpuUtilization())
        .isEqualTo(0.5);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "cpu_utilization=0.5", "XML <a/>", "TEXT ", "TEXT cpu_utilization", "TEXT cpu_utilization=abc",
      "TEXT cpu_utilization=-1", "TEXT mem_utilization=1.5", "TEXT utilization.x=2", "TEXT bogus=1",
      "TEXT cpu_utilization=0.1,,eps=1", "TEXT named_metrics.=1", "TEXT cpu_utilization=NaN",
      "TEXT eps=Infinity", "JSON ", "JSON {", "JSON {\"cpu_utilization\":}", "JSON {\"cpu_utilization\":0.1",
      "JSON {\"cpu_utilization\":0.1} x", "JSON {\"nope\":1}", "JSON {\"named_metrics\":{\"a\":\"x\"}}",
      "JSON [1]", "JSON {\"eps\":-2}", "BIN %%%", "BIN CQ==", "BIN CgA="})
  void malformedReportsAreRejected(String header) {
    assertThatThrownBy(() -> OrcaLoadReportParser.parseHeader(header))
        .isInstanceOf(MalformedLoadReportException.class);
  }

  @Test
  void malformedBinaryIsRejected() {
    byte[] good = OrcaLoadReport.newBuilder().putNamedMetrics("k", 1).build().toByteArray();
    byte[] cut = java.util.Arrays.copyOf(good, good.length - 3);
    assertThatThrownBy(() -> OrcaLoadReportParser.parseBinary(Base64.getEncoder().encodeToString(cut)))
        .isInstanceOf(MalformedLoadReportException.class);
    byte[] negative = OrcaLoadReport.newBuilder().setCpuUtilization(-0.5).build().toByteArray();
    assertThatThrownBy(() -> OrcaLoadReportParser.parseBinary(Base64.getEncoder().encodeToString(negative)))
        .isInstanceOf(MalformedLoadReportException.class);
  }

  @Test
  void utilizationFollowsEnvoysOrder() {
    var app = OrcaLoadReportParser.parseHeader("TEXT application_utilization=0.4,cpu_utilization=0.9,"
        + "named_metrics.a=0.95");
    assertThat(app.utilizationFor(List.of("named_metrics.a"))).isEqualTo(0.4);
    var named = OrcaLoadReportParser.parseHeader("TEXT cpu_utilization=0.9,named_metrics.a=0.3,named_metrics.b=0.6,"
        + "utilization.disk=0.5");
    assertThat(named.utilizationFor(List.of("named_metrics.a", "utilization.disk"))).isEqualTo(0.5);
    assertThat(named.utilizationFor(List.of("named_metrics.*"))).isEqualTo(0.6);
    assertThat(named.utilizationFor(List.of("named_metrics.missing"))).isEqualTo(0.9);
    assertThat(named.utilizationFor(List.of())).isEqualTo(0.9);
  }
}
