/**
 * Request tracing (Envoy's {@code Tracing} and {@code envoy.tracers.zipkin}): the sampling
 * decision, B3 and W3C propagation, spans collected as plain per-request objects on the worker,
 * and their export by a reporter thread of its own.
 */
package io.spillway.edge.tracing;
