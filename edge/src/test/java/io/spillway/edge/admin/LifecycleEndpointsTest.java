package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** /drain_listeners, /quitquitquit and /runtime. */
class LifecycleEndpointsTest {
  private final FakeAdminContext context = new FakeAdminContext();

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void drainListenersStopsAcceptingAndDrainsConnectionsOnlyWhenGraceful() {
    DrainListenersEndpoint drain = new DrainListenersEndpoint(context);

    assertThat(drain.handle(Requests.post("/drain_listeners")).bodyText()).isEqualTo("OK\n");
    assertThat(drain.handle(Requests.post("/drain_listeners?graceful&inboundonly")).bodyText()).isEqualTo("OK\n");

    assertThat(drain.mutating()).isTrue();
    assertThat(context.drainCalls).containsExactly(false, true);
  }

  @Test
  void quitAnswersFirstAndExitsOnceTheAnswerIsSent() {
    QuitEndpoint quit = new QuitEndpoint(context);

    AdminResponse r = quit.handle(Requests.post("/quitquitquit"));

    assertThat(quit.mutating()).isTrue();
    assertThat(r.bodyText()).isEqualTo("OK\n");
    assertThat(context.exitCalls).isEmpty();
    r.afterSent().run();
    assertThat(context.exitCalls).containsExactly(Duration.ZERO);
  }

  @Test
  void reopenLogsReopensTheAccessLogFiles() {
    ReopenLogsEndpoint reopen = new ReopenLogsEndpoint(context);

    AdminResponse r = reopen.handle(Requests.post("/reopen_logs"));

    assertThat(reopen.mutating()).isTrue();
    assertThat(r.bodyText()).isEqualTo("OK\n");
    assertThat(context.reopenCalls).hasValue(1);
  }

}
