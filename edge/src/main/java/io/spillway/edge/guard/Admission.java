package io.spillway.edge.guard;

/**
 * What {@link PeerGuard#tryAcquire} answers, decided synchronously:
 *
 * <ul>
 *   <li>{@link Permit} — admitted: make the call, then {@link Permit#release release} it exactly
 *       once with the call's {@link Outcome}. In shadow every call gets a permit.
 *   <li>{@link Refusal} — refused (enforce only): answer {@code 503}; nothing to release.
 *   <li>{@link Ticket} — queued (enforce only): wait for the {@link QueueCallback}, or
 *       {@link Ticket#cancel cancel} the wait when the downstream request goes away.
 * </ul>
 *
 * Meant for a pattern-matching {@code switch}.
 */
public sealed interface Admission permits Permit, Refusal, Ticket {}
