/**
 * Listeners: accepting downstream connections, the TLS inspector, filter chain choice, TLS,
 * protocol selection, connection accounting (hot path).
 */
package io.spillway.edge.listener;
