/**
 * The outbound guard (SPEC §3.3): one {@link io.spillway.edge.guard.PeerGuard} per upstream peer
 * limits the edge's calls to it — calls in flight, a bounded FIFO wait queue, the request timeout
 * (armed by the router), a circuit breaker and a retry budget — in the modes off, shadow and
 * enforce. Everything here is lock-free and a queued call holds no thread.
 *
 * <p>Not wired into the router yet: the router will look a guard up in the
 * {@link io.spillway.edge.guard.GuardRegistry} once per request, call
 * {@link io.spillway.edge.guard.PeerGuard#tryAcquire}, arm the request timeout and release the
 * {@link io.spillway.edge.guard.Permit} with the call's {@link io.spillway.edge.guard.Outcome}.
 */
package io.spillway.edge.guard;
