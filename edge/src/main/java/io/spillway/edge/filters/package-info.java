/** The HTTP filters the edge supports, registered under Envoy's names. */
package io.spillway.edge.filters;
