/**
 * The control path from the xDS server: the ADS client (State of the World and Delta), its
 * bootstrap config, and the last-known-good state on disk.
 */
package io.spillway.edge.xds;
