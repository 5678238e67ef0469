/** Envoy's health check HTTP filter: health check requests answered by the edge or passed through. */
package io.spillway.edge.filters.healthcheck;
