package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AdminEndpointsTest {
  private final FakeAdminContext context = new FakeAdminContext();
  private final Map<String, AdminEndpoint> endpoints = AdminEndpoints.all(context);

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void registersEnvoysPathsInOrder() {
    assertThat(endpoints.keySet()).containsExactly("/", "/help", "/ready", "/server_info", "/hot_restart_version", "/stats",
        "/stats/prometheus", "/reset_counters", "/clusters", "/listeners", "/config_dump", "/memory", "/logging",
        "/healthcheck/fail", "/healthcheck/ok", "/drain_listeners", "/quitquitquit", "/reopen_logs", "/runtime", "/runtime_modify", "/overload", "/ratelimits",
        "/xds",
        "/cpuprofile", "/memoryprofile");
  }

  @Test
  void hotRestartVersionIsTheContextsOrDisabled() {
    AdminResponse r = endpoints.get("/hot_restart_version").handle(Requests.get("/hot_restart_version"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("disabled\n");
    AdminResponse enabled = new HotRestartVersionEndpoint(() -> "spillway.hot_restart.1")
        .handle(Requests.get("/hot_restart_version"));
    assertThat(new String(enabled.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("spillway.hot_restart.1\n");
  }

  @Test
  void exactlyTheStateChangingPathsArePostOnly() {
    Map<String, Boolean> mutating = endpoints.entrySet().stream()
        .filter(e -> e.getValue().mutating())
        .collect(Collectors.toMap(Map.Entry::getKey, e -> true));

    assertThat(mutating.keySet()).containsExactlyInAnyOrder("/reset_counters", "/logging", "/healthcheck/fail",
        "/healthcheck/ok", "/drain_listeners", "/quitquitquit", "/reopen_logs", "/runtime_modify", "/cpuprofile",
        "/memoryprofile");
  }

  @Test
  void helpListsEveryPathWithItsHelpLine() {
    AdminResponse r = endpoints.get("/help").handle(Requests.get("/help"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).startsWith("admin commands are:\n  /: print out list of admin commands\n");
    assertThat(r.bodyText().lines().skip(1)).hasSize(endpoints.size());
    assertThat(r.bodyText())
        .contains("  /ready: print server state, return 200 if LIVE, otherwise return 503\n")
        .contains("  /quitquitquit (POST): exit the server\n")
        .contains("  /runtime: print runtime values\n")
        .contains("  /runtime_modify (POST): modify runtime values in the admin layer");
    assertThat(endpoints.get("/").handle(Requests.get("/")).bodyText()).isEqualTo(r.bodyText());
  }
}
