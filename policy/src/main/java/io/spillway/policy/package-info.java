/**
 * The overload policy shared by edge, central and the console: the {@link
 * io.spillway.policy.OverloadPolicy} model, its JSON form, validation, the deployment baseline it
 * falls back to, and a machine-readable description generated from one field table ({@link
 * io.spillway.policy.PolicyField}). {@link io.spillway.policy.PolicyProto} converts it to and from
 * its xDS resource, {@code spillway.policy.v1.OverloadPolicy} (generated from {@code src/main/proto}).
 *
 * <p>Every field of a policy is optional. An absent field is a {@code null} component (boxed
 * types, never {@link java.util.Optional}), is left out of the JSON, and takes the deployment's
 * value when the policy is resolved into an {@link io.spillway.policy.EffectivePolicy}.
 */
package io.spillway.policy;
