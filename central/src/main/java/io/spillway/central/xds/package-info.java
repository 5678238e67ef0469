/** The xDS server: one ADS stream per edge (State of the World and Delta), authenticated, pushed on every committed change. */
package io.spillway.central.xds;
