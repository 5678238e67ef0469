package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginRoute.Kind;
import org.junit.jupiter.api.Test;

class OriginRouteTest {

    @Test
    void pathsWithoutABehaviourGetTheDefault() {
        assertThat(OriginRoute.parse("/").kind()).isEqualTo(Kind.DEFAULT);
        assertThat(OriginRoute.parse("/api/users?id=3").kind()).isEqualTo(Kind.DEFAULT);
    }

    @Test
    void numberedBehavioursTakeTheNextSegment() {
        OriginRoute status = OriginRoute.parse("/status/503");
        assertThat(status.kind()).isEqualTo(Kind.STATUS);
        assertThat(status.argument()).isEqualTo(503);
        assertThat(OriginRoute.parse("/bytes/1073741825").argument()).isEqualTo(1_073_741_825L);
        assertThat(OriginRoute.parse("/delay/250?x=1").argument()).isEqualTo(250);
    }

    @Test
    void aPrefixInFrontOfTheBehaviourIsIgnored() {
        OriginRoute route = OriginRoute.parse("/cluster-a/status/404");
        assertThat(route.kind()).isEqualTo(Kind.STATUS);
        assertThat(route.argument()).isEqualTo(404);
        assertThat(OriginRoute.parse("/v1/echo").kind()).isEqualTo(Kind.ECHO);
    }

    @Test
    void aNumberedBehaviourWithoutANumberDoesNotMatch() {
        assertThat(OriginRoute.parse("/status").kind()).isEqualTo(Kind.DEFAULT);
        assertThat(OriginRoute.parse("/status/abc").kind()).isEqualTo(Kind.DEFAULT);
        assertThat(OriginRoute.parse("/status/x/delay/5").kind()).isEqualTo(Kind.DELAY);
    }

    @Test
    void queryNumbersFallBackWhenAbsentOrInvalid() {
        OriginRoute route = OriginRoute.parse("/chunked?parts=5&delay=oops");
        assertThat(route.kind()).isEqualTo(Kind.CHUNKED);
        assertThat(route.queryNumber("parts", 3)).isEqualTo(5);
        assertThat(route.queryNumber("delay", 0)).isZero();
        assertThat(route.queryNumber("status", 200)).isEqualTo(200);
    }
}
