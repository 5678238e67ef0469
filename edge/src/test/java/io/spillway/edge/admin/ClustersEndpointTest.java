package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.edge.upstream.Host;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ClustersEndpointTest {
  private final FakeAdminContext context = new FakeAdminContext();
  private final ClustersEndpoint endpoint = new ClustersEndpoint(context::clusters);

  @BeforeEach
  void someTraffic() {
    Host first = context.clusters.get("backend").hosts().hosts().get(0);
    first.requestStarted();
    first.requestStarted();
    first.requestStarted();
    first.requestFinished(true);
    first.requestFinished(false);
  }

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void textHasThresholdsThenEveryHostsStatsInEnvoysForm() {
    AdminResponse r = endpoint.handle(Requests.get("/clusters"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/plain");
    assertThat(r.bodyText()).startsWith("""
        backend::observability_name::backend
        backend::default_priority::max_connections::100
        backend::default_priority::max_pending_requests::200
        backend::default_priority::max_requests::300
        backend::default_priority::max_retries::4
        backend::added_via_api::false
        backend::127.0.0.1:8080::cx_active::0
        backend::127.0.0.1:8080::cx_connect_fail::0
        backend::127.0.0.1:8080::cx_total::0
        backend::127.0.0.1:8080::rq_active::1
        backend::127.0.0.1:8080::rq_error::1
        backend::127.0.0.1:8080::rq_success::1
        backend::127.0.0.1:8080::rq_timeout::0
        backend::127.0.0.1:8080::rq_total::3
        backend::127.0.0.1:8080::hostname::127.0.0.1
        backend::127.0.0.1:8080::health_flags::healthy
        backend::127.0.0.1:8080::weight::1
        backend::127.0.0.1:8080::region::
        backend::127.0.0.1:8080::zone::
        backend::127.0.0.1:8080::sub_zone::
        backend::127.0.0.1:8080::canary::false
        backend::127.0.0.1:8080::priority::0
        backend::127.0.0.1:8080::success_rate::-1
        backend::127.0.0.1:8080::local_origin_success_rate::-1
        backend::127.0.0.2:8081::cx_active::0
        """);
    assertThat(r.bodyText()).contains("backend::127.0.0.2:8081::weight::3\n");
    assertThat(r.bodyText().lines()).allMatch(line -> line.startsWith("backend::"));
    assertThat(r.bodyText()).doesNotContain("pressure").doesNotContain("ejected");
  }

  @Test
  void jsonIsEnvoysClusterStatuses() throws Exception {
    AdminResponse r = endpoint.handle(Requests.get("/clusters?format=json"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode cluster = new ObjectMapper().readTree(r.body()).get("cluster_statuses").get(0);
    assertThat(cluster.get("name").asText()).isEqualTo("backend");
    assertThat(cluster.get("observability_name").asText()).isEqualTo("backend");
    JsonNode thresholds = cluster.get("circuit_breakers").get("thresholds").get(0);
    assertThat(thresholds.get("max_connections").asInt()).isEqualTo(100);
    assertThat(thresholds.get("max_pending_requests").asInt()).isEqualTo(200);
    assertThat(thresholds.get("max_requests").asInt()).isEqualTo(300);
    assertThat(thresholds.get("max_retries").asInt()).isEqualTo(4);

    JsonNode hosts = cluster.get("host_statuses");
    assertThat(hosts).hasSize(2);
    JsonNode host = hosts.get(0);
    assertThat(host.get("address").get("socket_address").get("address").asText()).isEqualTo("127.0.0.1");
    assertThat(host.get("address").get("socket_address").get("port_value").asInt()).isEqualTo(8080);
    assertThat(host.get("health_status").get("eds_health_status").asText()).isEqualTo("HEALTHY");
    assertThat(host.get("weight").asInt()).isEqualTo(1);
    assertThat(host.get("hostname").asText()).isEqualTo("127.0.0.1");
    Map<String, Long> stats = new HashMap<>();
    Map<String, String> types = new HashMap<>();
    for (JsonNode stat : host.get("stats")) {
      stats.put(stat.get("name").asText(), stat.get("value").asLong());
      types.put(stat.get("name").asText(), stat.get("type").asText());
    }
    assertThat(stats).containsOnlyKeys("cx_active", "cx_connect_fail", "cx_total", "rq_active", "rq_error",
        "rq_success", "rq_timeout", "rq_total");
    assertThat(stats).containsEntry("rq_total", 3L).containsEntry("rq_active", 1L).containsEntry("rq_error", 1L)
        .containsEntry("cx_total", 0L);
    assertThat(types).containsEntry("rq_total", "COUNTER").containsEntry("rq_active", "GAUGE");
    assertThat(hosts.get(1).get("weight").asInt()).isEqualTo(3);
    assertThat(host.has("pressure")).isFalse();
  }

  @Test
  void unknownFormatIsA400() {
    assertThat(endpoint.handle(Requests.get("/clusters?format=yaml")).status()).isEqualTo(400);
  }

  @Test
  void healthFlagsReadAsEnvoyPrintsThem() {
    assertThat(ClustersEndpoint.healthFlags(0)).isEqualTo("healthy");
    assertThat(ClustersEndpoint.healthFlags(Host.FAILED_ACTIVE_HC)).isEqualTo("/failed_active_hc");
    assertThat(ClustersEndpoint.healthFlags(Host.FAILED_OUTLIER_CHECK)).isEqualTo("/failed_outlier_check");
    assertThat(ClustersEndpoint.healthFlags(Host.FAILED_ACTIVE_HC | Host.FAILED_OUTLIER_CHECK | Host.PENDING_ACTIVE_HC))
        .isEqualTo("/failed_active_hc/failed_outlier_check/pending_active_hc");
  }

  @Test
  void degradedAndEdsFlagsReadAsEnvoyPrintsThem() {
    assertThat(ClustersEndpoint.healthFlags(Host.DEGRADED_ACTIVE_HC)).isEqualTo("/degraded_active_hc");
    assertThat(ClustersEndpoint.healthFlags(Host.DEGRADED_EDS_HEALTH)).isEqualTo("/degraded_eds_health");
    // Envoy's order: failed_active_hc, failed_outlier_check, failed_eds_health, degraded_active_hc,
    // degraded_eds_health, pending_active_hc, excluded_via_immediate_hc_fail, eds_status_draining.
    assertThat(ClustersEndpoint.healthFlags(Host.EDS_STATUS_DRAINING | Host.DEGRADED_EDS_HEALTH
        | Host.DEGRADED_ACTIVE_HC | Host.FAILED_EDS_HEALTH | Host.FAILED_ACTIVE_HC))
        .isEqualTo("/failed_active_hc/failed_eds_health/degraded_active_hc/degraded_eds_health/eds_status_draining");
  }

  @Test
  void jsonHealthStatusCarriesTheDegradedCheckAndTheEdsStatus() {
    assertThat(ClustersEndpoint.healthStatus(Host.DEGRADED_ACTIVE_HC).getFailedActiveDegradedCheck()).isTrue();
    assertThat(ClustersEndpoint.healthStatus(Host.DEGRADED_EDS_HEALTH).getEdsHealthStatus())
        .isEqualTo(io.envoyproxy.envoy.config.core.v3.HealthStatus.DEGRADED);
    assertThat(ClustersEndpoint.healthStatus(Host.FAILED_EDS_HEALTH).getEdsHealthStatus())
        .isEqualTo(io.envoyproxy.envoy.config.core.v3.HealthStatus.UNHEALTHY);
    assertThat(ClustersEndpoint.healthStatus(Host.EDS_STATUS_DRAINING).getEdsHealthStatus())
        .isEqualTo(io.envoyproxy.envoy.config.core.v3.HealthStatus.DRAINING);
  }
}
