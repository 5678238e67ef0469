package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A route's {@code max_stream_duration} against a real origin: the route's {@code timeout} no
 * longer applies, the stream is limited from its start (408, DT), and for gRPC calls the
 * {@code grpc-timeout} header sets the limit under {@code grpc_timeout_header_max} — the setting
 * gRPC-Web gateways write so that a server stream outlives the 15 s default route timeout.
 */
class MaxStreamDurationIT {
  private static final String GRPC = "application/grpc";
  private OriginServer origin;
  private EdgeHarness edge;

  @BeforeEach
  void origin() {
    origin = OriginServer.start("origin");
  }

  @AfterEach
  void cleanup() {
    if (edge != null) {
      edge.close();
    }
    origin.close();
  }

  private EdgeHarness edge(String routeFields) throws Exception {
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route:
            cluster: origin
        %s
        """.formatted(EdgeHarness.indent(routeFields, 4)), cluster("origin", "", origin.port())));
    return edge;
  }

  @Test
  void withMaxStreamDurationTheRouteTimeoutNoLongerApplies() throws Exception {
    edge("timeout: 0.1s\nmax_stream_duration: { max_stream_duration: 5s }");

    HttpResponse<String> r = edge.get("/delay/400");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(edge.stat("cluster.origin.upstream_rq_timeout")).isZero();
  }

  @Test
  void aStreamPastItsDurationIsAnswered408() throws Exception {
    edge("max_stream_duration: { max_stream_duration: 0.3s }");

    HttpResponse<String> r = edge.get("/delay/5000");

    assertThat(r.statusCode()).isEqualTo(408);
    assertThat(r.body()).isEqualTo("downstream duration timeout");
    assertThat(edge.awaitStat("http.ingress.downstream_rq_max_duration_reached", 1)).isEqualTo(1);
  }

  @Test
  void aGrpcCallsTimeoutHeaderIsItsLimitAndGoesUpstreamAsTheLimit() throws Exception {
    edge("timeout: 0.1s\nmax_stream_duration: { grpc_timeout_header_max: 0s }");

    HttpResponse<String> ok = edge.get("/delay/400", "content-type", GRPC, "grpc-timeout", "5S");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(origin.lastRequest().header("grpc-timeout")).isEqualTo("5000m");

    HttpResponse<String> late = edge.get("/delay/5000", "content-type", GRPC, "grpc-timeout", "300m");
    assertThat(late.statusCode()).isEqualTo(200); // a gRPC answer: trailers-only
    assertThat(late.headers().firstValue("grpc-status")).hasValue("4"); // DEADLINE_EXCEEDED
    assertThat(late.headers().firstValue("grpc-message")).hasValue("downstream duration timeout");
  }

  @Test
  void grpcTimeoutHeaderMaxCapsTheHeaderAndTheOffsetIsTakenOff() throws Exception {
    edge("max_stream_duration: { grpc_timeout_header_max: 0.5s, grpc_timeout_header_offset: 0.1s }");

    HttpResponse<String> r = edge.get("/delay/5000", "content-type", GRPC, "grpc-timeout", "10S");

    assertThat(origin.lastRequest().header("grpc-timeout")).isEqualTo("400m");
    assertThat(r.headers().firstValue("grpc-status")).hasValue("4");
  }

  @Test
  void aGrpcCallWithoutTimeoutHasNoLimitAndNoRouteTimeout() throws Exception {
    edge("timeout: 0.1s\nmax_stream_duration: { grpc_timeout_header_max: 0s }");

    HttpResponse<String> r = edge.get("/delay/500", "content-type", GRPC);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("grpc-status")).isEmpty();
    assertThat(origin.lastRequest().header("grpc-timeout")).isNull();
    assertThat(edge.stat("http.ingress.downstream_rq_max_duration_reached")).isZero();
  }
}
