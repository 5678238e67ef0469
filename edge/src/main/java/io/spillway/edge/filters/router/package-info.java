/** envoy.filters.http.router: the terminal filter; upstream requests, retries and timeouts. */
package io.spillway.edge.filters.router;
