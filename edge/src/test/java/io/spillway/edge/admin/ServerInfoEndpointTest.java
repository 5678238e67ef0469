package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.edge.config.EdgeConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServerInfoEndpointTest {
  private final FakeAdminContext context = new FakeAdminContext();
  private final ServerInfoEndpoint endpoint = new ServerInfoEndpoint(context, "1.2.3");

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void reportsVersionStateUptimeOptionsAndNode() throws Exception {
    context.advance(Duration.ofSeconds(42));

    JsonNode info = info();

    assertThat(info.get("version").asText()).isEqualTo("spillway/1.2.3");
    assertThat(info.get("state").asText()).isEqualTo("LIVE");
    assertThat(info.get("uptime_current_epoch").asText()).isEqualTo("42s");
    assertThat(info.get("uptime_all_epochs").asText()).isEqualTo("42s");
    assertThat(info.get("hot_restart_version").asText()).isEqualTo("disabled");
    JsonNode options = info.get("command_line_options");
    assertThat(options.get("concurrency").asInt()).isEqualTo(2);
    assertThat(options.get("mode").asText()).isEqualTo("Serve");
    assertThat(options.get("restart_epoch").asInt()).isZero();
    JsonNode node = info.get("node");
    assertThat(node.get("id").asText()).isEqualTo("edge-1");
    assertThat(node.get("cluster").asText()).isEqualTo("edges");
    assertThat(node.get("metadata").get("team").asText()).isEqualTo("core");
    assertThat(node.get("user_agent_name").asText()).isEqualTo("spillway");
  }

  @Test
  void nodeShowsTheEffectiveIdAfterCommandLineOverrides() throws Exception {
    context.config = new EdgeConfig(new EdgeConfig.NodeInfo("override-id", "override-cluster", Map.of()),
        context.config.admin(), context.config.listeners(), context.config.clusters(), context.config.overload());

    JsonNode node = info().get("node");

    assertThat(node.get("id").asText()).isEqualTo("override-id");
    assertThat(node.get("cluster").asText()).isEqualTo("override-cluster");
  }

  @Test
  void stateFollowsDrainAndHealthCheckAndStartUp() throws Exception {
    context.healthCheckFailed = true;
    assertThat(info().get("state").asText()).isEqualTo("DRAINING");

    context.healthCheckFailed = false;
    context.draining = true;
    assertThat(info().get("state").asText()).isEqualTo("DRAINING");

    context.draining = false;
    context.started = false;
    assertThat(info().get("state").asText()).isEqualTo("PRE_INITIALIZING");
  }

  @Test
  void versionFallsBackToDevOutsideAVersionedJar() {
    // Tests run from target/classes, which has no manifest.
    assertThat(ServerInfoEndpoint.implementationVersion()).isEqualTo("dev");
  }

  private JsonNode info() throws Exception {
    AdminResponse r = endpoint.handle(Requests.get("/server_info"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    return new ObjectMapper().readTree(r.body());
  }
}
