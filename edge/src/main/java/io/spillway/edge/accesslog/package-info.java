/** Envoy's access logs: compiled formats and filters, and the buffered files workers hand lines to. */
package io.spillway.edge.accesslog;
