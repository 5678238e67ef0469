/** envoy.filters.http.cors: answers CORS preflights and marks allowed origins' responses, by the route's CORS policy. */
package io.spillway.edge.filters.cors;
