package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.v1.AccessLog;
import io.spillway.policy.v1.OverloadPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ControlPlanePolicyTest {

  private static final Path DIR = Path.of("/srv/edge/logs");

  private static ControlPlanePolicy decode(OverloadPolicy resource) {
    return ControlPlanePolicy.decode(resource, DeploymentDefaults.builtIn(), DIR, false);
  }

  @Test
  void aResourceWithOnlyAnAccessLogLeavesTheOverloadPolicyToTheDeployment() {
    ControlPlanePolicy policy = decode(OverloadPolicy.newBuilder()
        .setAccessLog(AccessLog.newBuilder().setFormat("%RESPONSE_CODE%").setDestinationFile("a/b.log")).build());
    assertThat(policy.overload()).isEmpty();
    assertThat(policy.accessLog()).hasValueSatisfying(c -> {
      assertThat(c.sink()).isEqualTo(AccessLogConfig.Sink.FILE);
      assertThat(c.path()).isEqualTo("/srv/edge/logs/a/b.log");
    });
  }

  @Test
  void noAccessLogAndAnOverloadOnlyResourceAsBefore() {
    ControlPlanePolicy policy = decode(OverloadPolicy.getDefaultInstance());
    assertThat(policy.overload()).isPresent();
    assertThat(policy.accessLog()).isEmpty();
  }

  @Test
  void whatTheTableOrTheEdgesParserRefusesIsTheNacksMessage() {
    assertThatThrownBy(() -> decode(OverloadPolicy.newBuilder()
        .setAccessLog(AccessLog.newBuilder().setDestinationFile("../../etc/x")).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("accessLog.destination.file must not contain '.' or '..' segments");
    assertThatThrownBy(() -> decode(OverloadPolicy.newBuilder()
        .setAccessLog(AccessLog.newBuilder().setFormat("%REQ%")).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("accessLog.format: ");
  }

  @Test
  void aFleetWideLimitIsRefusedByAnEdgeWithoutRedisAndAcceptedByOneWithIt() {
    OverloadPolicy resource = OverloadPolicy.newBuilder().setRateLimits(io.spillway.policy.v1.RateLimits.newBuilder()
        .addLimits(io.spillway.policy.v1.RateLimit.newBuilder().setName("local").setKey("route").setRate(1).setBurst(1))
        .addLimits(io.spillway.policy.v1.RateLimit.newBuilder().setName("shared").setKey("route").setRate(1).setBurst(1)
            .setScope("fleet")))
        .build();
    assertThatThrownBy(() -> decode(resource))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rateLimits.limits[1].scope is fleet, but this edge was started without --redis-uri: "
            + "it has no shared count to use");
    ControlPlanePolicy accepted = ControlPlanePolicy.decode(resource, DeploymentDefaults.builtIn(), DIR, true);
    assertThat(accepted.rateLimits().limits()).extracting(l -> l.effectiveScope().jsonName()).containsExactly("edge", "fleet");
  }
}
