package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyProtoTest {

  private static final OverloadPolicy FULL = new OverloadPolicy(
      new Inbound(Mode.ENFORCE, 300, 0.9, 0.6, 2, new Adaptive(10, 2000, 2.0, 0.3, 40)),
      new Outbound(Mode.SHADOW, 64, 128, 500, 3000, new Breaker(true, 0.4, 30, 20, 7, 4),
          new RetryBudget(0.1, 5)));

  @Test
  void everyFieldSurvivesModelToProtoToModel() {
    ParseResult result = PolicyProto.parse(PolicyProto.toProto(FULL));

    assertThat(result.problems()).isEmpty();
    assertThat(result.policy()).isEqualTo(FULL);
  }

  @Test
  void unsetFieldsStayUnset() {
    OverloadPolicy sparse = new OverloadPolicy(new Inbound(null, 100, null, null, null, null), null);

    io.spillway.policy.v1.OverloadPolicy message = PolicyProto.toProto(sparse);
    assertThat(message.hasOutbound()).isFalse();
    assertThat(message.getInbound().hasContinuationShare()).isFalse();
    assertThat(message.getInbound().hasAdaptive()).isFalse();
    assertThat(message.getInbound().getMode()).isEqualTo(io.spillway.policy.v1.Mode.MODE_UNSPECIFIED);

    ParseResult result = PolicyProto.parse(message);
    assertThat(result.valid()).isTrue();
    assertThat(result.policy()).isEqualTo(sparse);
  }

  @Test
  void emptyMessageIsTheEmptyPolicy() {
    ParseResult result = PolicyProto.parse(io.spillway.policy.v1.OverloadPolicy.getDefaultInstance());

    assertThat(result.valid()).isTrue();
    assertThat(result.policy()).isEqualTo(OverloadPolicy.EMPTY);
  }

  @Test
  void zeroIsAValueNotAbsence() {
    io.spillway.policy.v1.OverloadPolicy message = io.spillway.policy.v1.OverloadPolicy.newBuilder()
        .setOutbound(io.spillway.policy.v1.Outbound.newBuilder()
            .setRetryBudget(io.spillway.policy.v1.RetryBudget.newBuilder().setRatio(0).setMinPerSecond(0)))
        .build();

    ParseResult result = PolicyProto.parse(message);

    assertThat(result.valid()).isTrue();
    assertThat(result.policy().outbound().retryBudget()).isEqualTo(new RetryBudget(0.0, 0));
  }

  @Test
  void outOfRangeValueGivesTheValidatorsMessage() {
    io.spillway.policy.v1.OverloadPolicy message = io.spillway.policy.v1.OverloadPolicy.newBuilder()
        .setInbound(io.spillway.policy.v1.Inbound.newBuilder().setRetryAfterSeconds(61))
        .build();

    ParseResult fromProto = PolicyProto.parse(message);
    ParseResult fromJson = PolicyJson.parse("{\"inbound\":{\"retryAfterSeconds\":61}}");

    assertThat(fromProto.valid()).isFalse();
    assertThat(fromProto.problems()).isEqualTo(fromJson.problems());
    assertThat(fromProto.problems()).containsExactly(new Problem("inbound.retryAfterSeconds",
        PolicyField.INBOUND_RETRY_AFTER_SECONDS.rangeMessage()));
  }

  @Test
  void crossFieldRuleGivesTheValidatorsMessage() {
    OverloadPolicy broken = new OverloadPolicy(new Inbound(null, null, 0.5, 0.9, null, null), null);

    List<Problem> fromProto = PolicyProto.parse(PolicyProto.toProto(broken)).problems();

    assertThat(fromProto).isNotEmpty().isEqualTo(PolicyValidator.validate(broken));
  }

  @Test
  void unknownModeNumberIsATypeProblemAtTheModesPath() {
    io.spillway.policy.v1.OverloadPolicy message = io.spillway.policy.v1.OverloadPolicy.newBuilder()
        .setOutbound(io.spillway.policy.v1.Outbound.newBuilder().setModeValue(9))
        .build();

    ParseResult result = PolicyProto.parse(message);

    assertThat(result.problems()).containsExactly(
        new Problem("outbound.mode", PolicyField.OUTBOUND_MODE.typeMessage()));
  }

  @Test
  void survivesTheWire() throws Exception {
    byte[] bytes = PolicyProto.toProto(FULL).toByteArray();

    ParseResult result = PolicyProto.parse(io.spillway.policy.v1.OverloadPolicy.parseFrom(bytes));

    assertThat(result.policy()).isEqualTo(FULL);
  }
}
