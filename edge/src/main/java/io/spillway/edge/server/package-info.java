/** Process entry point, command line, bootstrap loading, lifecycle (start, drain, stop) and wiring. */
package io.spillway.edge.server;
