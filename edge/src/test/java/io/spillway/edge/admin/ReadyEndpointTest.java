package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadyEndpointTest {
  private final FakeAdminContext context = new FakeAdminContext();
  private final ReadyEndpoint ready = new ReadyEndpoint(context);

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void liveIs200() {
    AdminResponse r = ready.handle(Requests.get("/ready"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).isEqualTo("LIVE\n");
  }

  @Test
  void beforeStartUpIs503PreInitializing() {
    context.started = false;

    AdminResponse r = ready.handle(Requests.get("/ready"));

    assertThat(r.status()).isEqualTo(503);
    assertThat(r.bodyText()).isEqualTo("PRE_INITIALIZING\n");
  }

  @Test
  void failedHealthCheckIs503DrainingUntilRestored() {
    HealthCheckEndpoint fail = new HealthCheckEndpoint(context, true);
    HealthCheckEndpoint ok = new HealthCheckEndpoint(context, false);

    assertThat(fail.handle(Requests.post("/healthcheck/fail")).bodyText()).isEqualTo("OK\n");
    AdminResponse failed = ready.handle(Requests.get("/ready"));
    assertThat(failed.status()).isEqualTo(503);
    assertThat(failed.bodyText()).isEqualTo("DRAINING\n");

    assertThat(ok.handle(Requests.post("/healthcheck/ok")).bodyText()).isEqualTo("OK\n");
    assertThat(ready.handle(Requests.get("/ready")).status()).isEqualTo(200);
    assertThat(fail.mutating()).isTrue();
    assertThat(ok.mutating()).isTrue();
  }

  @Test
  void drainingIs503Draining() {
    context.draining = true;

    AdminResponse r = ready.handle(Requests.get("/ready"));

    assertThat(r.status()).isEqualTo(503);
    assertThat(r.bodyText()).isEqualTo("DRAINING\n");
  }
}
