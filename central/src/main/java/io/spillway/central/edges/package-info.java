/** The edge registry: registration, labels and selectors, one-time credentials, status columns, the reported gauges' window. */
package io.spillway.central.edges;
