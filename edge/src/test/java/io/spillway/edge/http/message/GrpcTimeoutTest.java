package io.spillway.edge.http.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrpcTimeoutTest {

  @Test
  void readsEveryUnitOfTheGrpcOverHttp2Spec() {
    assertThat(GrpcTimeout.parseNanos("1H")).isEqualTo(TimeUnit.HOURS.toNanos(1));
    assertThat(GrpcTimeout.parseNanos("2M")).isEqualTo(TimeUnit.MINUTES.toNanos(2));
    assertThat(GrpcTimeout.parseNanos("3S")).isEqualTo(TimeUnit.SECONDS.toNanos(3));
    assertThat(GrpcTimeout.parseNanos("250m")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    assertThat(GrpcTimeout.parseNanos("7u")).isEqualTo(7_000);
    assertThat(GrpcTimeout.parseNanos("99999999n")).isEqualTo(99_999_999);
    assertThat(GrpcTimeout.parseNanos("0m")).isZero();
  }

  @Test
  void aMalformedValueIsNoTimeout() {
    for (String bad : new String[] {"", "m", "5", "5s", "-5m", "1.5S", "123456789m", "5 m"}) {
      assertThat(GrpcTimeout.parseNanos(bad)).as(bad).isEqualTo(GrpcTimeout.NONE);
    }
    assertThat(GrpcTimeout.parseNanos(null)).isEqualTo(GrpcTimeout.NONE);
  }

  @Test
  void writesMillisecondsAndACoarserUnitPastEightDigits() {
    assertThat(GrpcTimeout.format(TimeUnit.MILLISECONDS.toNanos(1500))).isEqualTo("1500m");
    assertThat(GrpcTimeout.format(TimeUnit.SECONDS.toNanos(200_000))).isEqualTo("200000S");
    assertThat(GrpcTimeout.format(TimeUnit.MINUTES.toNanos(5_000_000))).isEqualTo("5000000M");
    assertThat(GrpcTimeout.format(Long.MAX_VALUE)).isEqualTo("2562047H"); // the longest a long holds
  }
}
