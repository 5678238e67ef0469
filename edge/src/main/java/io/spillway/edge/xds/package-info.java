/**
 * The control path from the xDS server: the ADS client (State of the World and Delta), its
 * bootstrap config, the last-known-good state on disk, and the gauge reports to central on the
 * same channel.
 */
package io.spillway.edge.xds;
