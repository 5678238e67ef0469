/** Envoy's fault injection HTTP filter: delays and aborts for a share of requests. */
package io.spillway.edge.filters.fault;
