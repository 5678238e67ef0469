/**
 * Envoy's overload manager: resource monitors polled on the control thread, triggers turning their
 * pressure into action states, and one immutable {@link io.spillway.edge.overload.OverloadState}
 * that workers read by precomputed index (hot path: no protobuf, no I/O, no locks).
 */
package io.spillway.edge.overload;
