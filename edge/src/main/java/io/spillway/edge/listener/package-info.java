/** Listeners: accepting downstream connections, TLS, protocol selection, connection accounting (hot path). */
package io.spillway.edge.listener;
