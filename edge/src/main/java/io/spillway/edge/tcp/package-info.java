/** Envoy's {@code tcp_proxy} network filter: a downstream connection relayed byte for byte to one upstream host. */
package io.spillway.edge.tcp;
