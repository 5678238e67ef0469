package io.spillway.central.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class PermissionTest {

  @Test
  void manageIncludesReadAndAdminIncludesBoth() {
    assertThat(Permission.EDGES_READ.grantedBy(Set.of(Permission.EDGES_READ))).isTrue();
    assertThat(Permission.EDGES_MANAGE.grantedBy(Set.of(Permission.EDGES_READ))).isFalse();
    assertThat(Permission.EDGES_READ.grantedBy(Set.of(Permission.EDGES_MANAGE))).isTrue();
    assertThat(Permission.ADMIN.grantedBy(Set.of(Permission.EDGES_MANAGE))).isFalse();
    assertThat(Permission.EDGES_MANAGE.grantedBy(Set.of(Permission.ADMIN))).isTrue();
    assertThat(Permission.EDGES_READ.grantedBy(Set.of())).isFalse();
  }

  @Test
  void principalAsksItsPermissions() {
    Principal reader = new Principal("r", Set.of(Permission.EDGES_READ), null);
    assertThat(reader.may(Permission.EDGES_READ)).isTrue();
    assertThat(reader.may(Permission.EDGES_MANAGE)).isFalse();
    assertThat(reader.viaSession()).isFalse();
  }

  @Test
  void storedFormRoundTripsAndSkipsUnknownNames() {
    assertThat(Permission.split(Permission.join(Permission.all()))).isEqualTo(Permission.all());
    assertThat(Permission.split("edges:read,bogus")).containsExactly(Permission.EDGES_READ);
    assertThat(Permission.fromJsonName("edges:manage")).contains(Permission.EDGES_MANAGE);
  }
}
