package io.spillway.policy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;
import java.util.Set;

/**
 * The overload protection of one edge, as central stores it and sends it: the inbound admission
 * limiter and the outbound guard, each with its own mode and settings.
 *
 * <p>Every component of this record and of its sections is optional: {@code null} means "not set
 * here, take the deployment's value" (the {@code HTTP_ADMISSION_*} / {@code HTTP_CLIENT_GUARD_*}
 * environment variable if the edge sets it, else the built-in default). Nulls are left out of the
 * JSON. A policy is only a request: check it with {@link PolicyValidator}, then resolve it with
 * {@link EffectivePolicy#resolve}.
 *
 * @param inbound the inbound admission limiter, or null
 * @param outbound the outbound guard, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record OverloadPolicy(Inbound inbound, Outbound outbound) {

  /** A policy that sets nothing: every field takes the deployment's value. */
  public static final OverloadPolicy EMPTY = new OverloadPolicy(null, null);

  /**
   * A policy that sets exactly the given fields; a section exists when one of its fields is set.
   *
   * @param values field values of each field's {@link PolicyField#javaType()}; a {@link Number} is
   *     also accepted for a {@code number} field
   * @throws IllegalArgumentException when a value has the wrong type (ranges are not checked here)
   */
  public static OverloadPolicy of(Map<PolicyField, ?> values) {
    return PolicyAssembler.assemble(values, Set.of());
  }
}
