/** envoy.filters.http.buffer: the whole request body before the rest of the chain. */
package io.spillway.edge.filters.buffer;
