/** The edge registry: registration, labels and selectors, one-time credentials, status columns. */
package io.spillway.central.edges;
